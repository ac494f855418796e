package org.slurmautoresume.supervisor.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.slurmautoresume.supervisor.step.AttemptLoopTest.only;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.supervisor.step.ScriptedSrun.Scripted;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;

/**
 * A job of three nodes around {@code srun -N2}: one in-job spare. The real supervisor over the
 * fake Slurm, agent and srun: where each attempt runs, what it is told, and what happens when
 * the spares run out.
 */
class InJobSpareRecoveryTest {

    @TempDir
    Path dir;

    private SupervisedRun job;

    @BeforeEach
    void jobOnThreeNodes() throws IOException {
        job = new SupervisedRun(
                dir, new FakeSlurm(List.of("node1", "node2", "node3"), List.of("node1", "node2", "node3", "node4")));
        job.with("SLURM_JOB_NODELIST", "node[1-3]")
                .with("SLURM_JOB_NUM_NODES", "3")
                .with("SLURMD_NODENAME", "node1");
    }

    @AfterEach
    void stopAgent() throws IOException {
        job.close();
    }

    private Scripted nodeDies(String node) {
        return Scripted.exits(1)
                .stderr("srun: error: Node failure on " + node)
                .onStart(running -> job.slurm.nodeState(node, "DOWN+NOT_RESPONDING"));
    }

    @Test
    void theFirstAttemptRunsOnTheJobsFirstNodesAndLeavesTheSpareIdle() throws Exception {
        ScriptedSrun srun = new ScriptedSrun(Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(
                List.of("srun", "--nodelist=node1,node2", "-N2", "train.sh"),
                srun.starts().get(0).argv());
        assertTrue(
                job.said().contains("in-job spares: the step runs on node[1-2] of the job's node[1-3]; node3 waits"),
                job.said());
        Map<String, String> first = srun.starts().get(0).environment();
        assertEquals(
                List.of("node[1-2]", "node1", "10.0.0.1", "2"),
                List.of(
                        first.get("NODE_LIST"),
                        first.get("MASTER_NODE"),
                        first.get("MASTER_ADDR"),
                        first.get("NNODES")),
                "the step's nodes, not the job's");
        assertEquals("node[1-3]", first.get("SLURM_JOB_NODELIST"), "Slurm's own variables stay the job's");
    }

    @Test
    void withoutSparesTheArgvIsTheUsersOwn() throws Exception {
        job.with("SLURM_JOB_NUM_NODES", "2").with("SLURM_JOB_NODELIST", "node[1-2]");
        ScriptedSrun srun = new ScriptedSrun(Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(SupervisedRun.ARGV, srun.starts().get(0).argv());
        assertTrue(!job.said().contains("in-job spares"), job.said());
    }

    @Test
    void aUserPlacedStepKeepsItsArgvAndHasNoSpares() throws Exception {
        job.with(SupervisorSettings.NODE_FAULT_FALLBACK, "exit");
        List<String> argv = List.of("srun", "-N2", "-w", "node[1-2]", "train.sh");
        ScriptedSrun srun = new ScriptedSrun(nodeDies("node2"));

        assertEquals(1, job.run(srun, java.util.Optional.empty(), argv));

        assertEquals(argv, srun.starts().get(0).argv());
        assertTrue(job.agent.requests("mark").isEmpty(), "no replacement configured: nothing marked, as before");
        assertTrue(job.said().contains("no replacement is configured"), job.said());
    }

    @Test
    void aNodeFaultRerunsOnTheSurvivorAndTheSpareWithoutAnyReplacementConfigured() throws Exception {
        ScriptedSrun srun = new ScriptedSrun(nodeDies("node2"), Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(1, job.agent.requests("mark").size());
        assertEquals(
                "node2", job.agent.requests("mark").get(0).path("nodes").get(0).asText());
        assertEquals("node[1,3]", job.slurm.jobNodeList());
        assertTrue(job.slurm.ran("salloc").isEmpty(), "no job expansion: " + job.slurm.ran());
        assertEquals(
                List.of("srun", "--nodelist=node1,node3", "-N2", "train.sh"),
                srun.starts().get(1).argv());
        Map<String, String> second = srun.starts().get(1).environment();
        assertEquals("node[1,3]", second.get("NODE_LIST"));
        assertEquals("node1", second.get("MASTER_NODE"));
        assertEquals("10.0.0.1", second.get("MASTER_ADDR"));
        assertEquals("2", second.get("NNODES"));
        assertEquals("node[1,3]", second.get("SLURM_JOB_NODELIST"));
        assertEquals("2", second.get("SLURM_JOB_NUM_NODES"));
        EventHistory.Event replacement = only(job.timeline(), "replacement");
        assertEquals("in-job-spare", replacement.details().get("path"));
        assertEquals("node2", replacement.details().get("faultyNodes"));
        assertEquals("node3", replacement.details().get("spares"));
        assertEquals("node[1,3]", replacement.details().get("stepNodes"));
        assertTrue(
                job.said().contains("in-job spare node3 takes the place of node2; re-running on node[1,3]"),
                job.said());
    }

    @Test
    @Timeout(30) // without the probes the first attempt would run until stopped
    void aSilentSlurmdIsFoundByTheProbesEvenWithoutAReplacementConfigured() throws Exception {
        job.silentSlurmd.add("node2");
        ScriptedSrun srun = new ScriptedSrun(
                Scripted.runsUntilStopped().onStart(running -> job.slurm.step("0", running.pid(), "node[1-2]")),
                Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(
                "node2", job.agent.requests("mark").get(0).path("nodes").get(0).asText());
        assertEquals(List.of(List.of("scancel", "42.0")), job.slurm.ran("scancel"));
        assertEquals("node[1,3]", job.slurm.jobNodeList());
        assertEquals("--nodelist=node1,node3", srun.starts().get(1).argv().get(1));
        assertEquals("slurmd-probe", only(job.timeline(), "detection").details().get("source"));
        assertEquals(
                "slurmd of node2 stopped answering and the agent confirmed it",
                job.timeline().stream()
                        .filter(e -> e.event().equals("attempt-ended"))
                        .findFirst()
                        .orElseThrow()
                        .details()
                        .get("reason"));
        assertEquals(
                "in-job-spare", only(job.timeline(), "replacement").details().get("path"));
    }

    @Test
    void theSpareTakesTheFailedNodesPlaceAndTheSurvivorsKeepTheirs() throws Exception {
        job = restart(new FakeSlurm(
                List.of("node1", "node2", "node3", "node4"), List.of("node1", "node2", "node3", "node4")));
        job.with("SLURM_JOB_NODELIST", "node[1-4]")
                .with("SLURM_JOB_NUM_NODES", "4")
                .with("SLURMD_NODENAME", "node1");
        ScriptedSrun srun = new ScriptedSrun(nodeDies("node2"), Scripted.exits(0));

        assertEquals(0, job.run(srun, java.util.Optional.empty(), List.of("srun", "--nodes=3", "train.sh")));

        assertEquals("--nodelist=node1,node2,node3", srun.starts().get(0).argv().get(1));
        assertEquals("--nodelist=node1,node4,node3", srun.starts().get(1).argv().get(1));
        Map<String, String> second = srun.starts().get(1).environment();
        assertEquals("node[1,4,3]", second.get("NODE_LIST"));
        assertEquals("node1", second.get("MASTER_NODE"));
        assertEquals("3", second.get("NNODES"));
        assertEquals("node[1,3-4]", second.get("SLURM_JOB_NODELIST"));
        assertEquals("3", second.get("SLURM_JOB_NUM_NODES"));
    }

    @Test
    void twoFaultsInARowTakeTwoSpares() throws Exception {
        job = restart(new FakeSlurm(
                List.of("node1", "node2", "node3", "node4"), List.of("node1", "node2", "node3", "node4")));
        job.with("SLURM_JOB_NODELIST", "node[1-4]")
                .with("SLURM_JOB_NUM_NODES", "4")
                .with("SLURMD_NODENAME", "node1");
        ScriptedSrun srun = new ScriptedSrun(nodeDies("node2"), nodeDies("node3"), Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(
                List.of("--nodelist=node1,node2", "--nodelist=node1,node3", "--nodelist=node1,node4"),
                srun.starts().stream().map(start -> start.argv().get(1)).toList());
        assertEquals("node[1,4]", job.slurm.jobNodeList());
        assertEquals("node[1,4]", srun.starts().get(2).environment().get("NODE_LIST"));
        assertEquals(
                List.of("in-job-spare", "in-job-spare"),
                job.timeline().stream()
                        .filter(e -> e.event().equals("replacement"))
                        .map(e -> e.details().get("path"))
                        .toList());
    }

    @Test
    void whenTheSparesRunOutWithoutAReplacementTheJobIsRequeued() throws Exception {
        ScriptedSrun srun = new ScriptedSrun(nodeDies("node2"), nodeDies("node3"));

        assertEquals(1, job.run(srun));

        assertEquals(2, srun.starts().size());
        assertEquals("node1", job.slurm.jobNodeList());
        only(job.timeline(), "replacement");
        assertEquals("node3", only(job.timeline(), "requeue").details().get("faultyNodes"));
        assertEquals(List.of(List.of("scontrol", "requeue", FakeSlurm.JOB)), job.slurm.ran("requeue"));
        assertTrue(job.said().contains("no in-job spare is left and no replacement is configured"), job.said());
    }

    @Test
    void whenTheSparesRunOutTheConfiguredReplacementGrowsTheJobAsBefore() throws Exception {
        job.with("AUTORESUME_SPARE_NODES", "node4");
        ScriptedSrun srun = new ScriptedSrun(nodeDies("node2"), nodeDies("node3"), Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(
                List.of("srun", "--nodelist=node1,node4", "-N2", "train.sh"),
                srun.starts().get(2).argv());
        assertEquals("node[1,4]", job.slurm.jobNodeList());
        List<EventHistory.Event> replacements = job.timeline().stream()
                .filter(e -> e.event().equals("replacement"))
                .toList();
        assertEquals(
                List.of("in-job-spare", "replacement"),
                replacements.stream().map(e -> e.details().get("path")).toList());
        assertEquals("node[1,4]", srun.starts().get(2).environment().get("NODE_LIST"));
    }

    /**
     * The batch host's GPU fails while the node lives: it cannot leave the job (the script, and
     * this supervisor, run there), but the step moves off it: the spare takes its place, first in
     * the step's order, and so becomes the master.
     */
    @Test
    void aFaultyBatchHostThatLivesLeavesTheStepAndTheSpareBecomesTheMaster() throws Exception {
        ScriptedSrun srun = new ScriptedSrun(
                Scripted.exits(1).onStart(running -> job.slurm.nodeState("node1", "ALLOCATED+FAIL")),
                Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(
                List.of("srun", "--nodelist=node3,node2", "-N2", "train.sh"),
                srun.starts().get(1).argv());
        Map<String, String> second = srun.starts().get(1).environment();
        assertEquals(List.of("node[3,2]", "node3"), List.of(second.get("NODE_LIST"), second.get("MASTER_NODE")));
        assertEquals("node[1-3]", job.slurm.jobNodeList(), "the batch host stays in the job");
    }

    /**
     * A node found faulty is never a step node again in this job: the batch host whose GPU failed
     * stays in the job (it cannot leave), yet when a second node fails later, the remaining spare
     * takes its place, not the batch host the first fault moved the step off.
     */
    @Test
    void aNodeFoundFaultyEarlierIsNeverPickedAgainForALaterFault() throws Exception {
        job = restart(new FakeSlurm(
                List.of("node1", "node2", "node3", "node4"), List.of("node1", "node2", "node3", "node4")));
        job.with("SLURM_JOB_NODELIST", "node[1-4]")
                .with("SLURM_JOB_NUM_NODES", "4")
                .with("SLURMD_NODENAME", "node1");
        // Each attempt's step is on record long enough to be looked up: its nodes are the step's own.
        ScriptedSrun srun = new ScriptedSrun(
                Scripted.exitsAfter(Duration.ofMillis(800), 1).onStart(running -> {
                    job.slurm.step("0", running.pid(), "node[1-2]");
                    job.slurm.nodeState("node1", "ALLOCATED+FAIL");
                }),
                Scripted.exitsAfter(Duration.ofMillis(800), 1).onStart(running -> {
                    job.slurm.step("1", running.pid(), "node[2-3]");
                    job.slurm.nodeState("node2", "DOWN+NOT_RESPONDING");
                }),
                Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(
                List.of("--nodelist=node1,node2", "--nodelist=node3,node2", "--nodelist=node3,node4"),
                srun.starts().stream()
                        .map(start -> start.argv().stream()
                                .filter(a -> a.startsWith("--nodelist="))
                                .findFirst()
                                .orElseThrow())
                        .toList(),
                job.said());
    }

    /**
     * A GPU job: Slurm refuses to grow it, so when its spares are gone the configured spare pool
     * is not tried (no donor salloc, no shrink that would only leave it a node short) and the
     * job goes straight to the requeue, its size kept.
     */
    @Test
    void aGpuJobWhoseSparesRanOutIsRequeuedWithoutTryingExpansion() throws Exception {
        job.with("AUTORESUME_SPARE_NODES", "node4");
        job.slurm.jobFields("TresPerNode=gres:gpu:4");
        ScriptedSrun srun = new ScriptedSrun(nodeDies("node2"), nodeDies("node3"));

        assertEquals(1, job.run(srun));

        assertEquals(2, srun.starts().size());
        assertEquals(List.of(), job.slurm.ran("salloc"));
        assertEquals(
                "node[1,3]", job.slurm.jobNodeList(), "only the first fault, which a spare repaired, shrank the job");
        assertEquals(List.of(List.of("scontrol", "requeue", FakeSlurm.JOB)), job.slurm.ran("requeue"));
        EventHistory.Event paths = only(job.timeline(), "recovery-paths");
        assertEquals(
                List.of("node3", "impossible", "true"),
                List.of(
                        paths.details().get("spares"),
                        paths.details().get("expansion"),
                        paths.details().get("requeue")));
        assertTrue(
                paths.details().get("noExpansion").contains("gres:gpu:4"),
                paths.details().toString());
    }

    private SupervisedRun restart(FakeSlurm slurm) throws IOException {
        job.close();
        Path sub = dir.resolve("second");
        sub.toFile().mkdirs();
        return new SupervisedRun(sub, slurm);
    }
}
