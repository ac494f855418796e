package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * In-job spares: a 3-node GPU job (with and without --no-kill) runs {@code srun --auto-resume=1 -N2},
 * so it holds one idle node. When the second step node dies, the supervisor has the agent mark
 * it, drops it from the job and re-runs the step at once on the first node and the spare, with
 * no replacement configured and no job expansion; the job ends COMPLETED on two nodes, and the
 * re-run's tasks have their GPUs on the spare. Runs on the GPU shape (GRES and
 * PrologFlags=Contain), where this is the path that works, with an agent on every node as in
 * production: a killed node's agent dies with it.
 */
class InJobSpareIT {

    /**
     * A first start may wait for nodes an earlier test's resized job left PLANNED until
     * slurmctld's next node ping (docs/slurm-behaviour.md); RecoveryScenariosIT allows the same.
     */
    private static final Duration FIRST_START = Duration.ofSeconds(300);

    private static final String PREFIX = "84-in-job-spare-it-";
    /** As a training job asks for them; srun's steps get the job's GPUs unless they ask otherwise. */
    private static final String GPUS = "--gpus-per-node=2";

    private static LocalCluster cluster;
    private static SlurmTruth truth;
    private static SupervisedSteps supervised;
    private static NodeAgents nodeAgents;

    @BeforeAll
    static void startAgentsAndPlugin() {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
        supervised = SupervisedSteps.start(cluster, PREFIX, "--node", "node1");
        nodeAgents = NodeAgents.start(cluster, supervised, List.of("node2", "node3", "node4"));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        try {
            NodeAgents.stop(nodeAgents);
        } finally {
            SupervisedSteps.stop(supervised);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theStepRunsAgainOnTheJobsOwnSpareAfterTheSecondStepNodeDies(boolean noKill) throws Exception {
        String script = """
                #!/bin/bash
                export AUTORESUME_AGENT_SOCKET=%s
                srun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c '
                  echo "attempt=$AUTO_RESUME_ATTEMPT node=$SLURMD_NODENAME list=$NODE_LIST master=$MASTER_ADDR mnode=$MASTER_NODE nnodes=$NNODES gpus=${CUDA_VISIBLE_DEVICES-none}"
                  if [ "$AUTO_RESUME_ATTEMPT" = 1 ]; then touch "$SLURM_JOB_ID.up.$SLURMD_NODENAME"; sleep 300; fi'
                echo "SRUN_EXIT=$?"
                """.formatted(supervised.agent().socket());
        List<String> options = noKill
                ? List.of("-N3", "-w", "node[1-3]", "--exclusive", GPUS, "--no-kill")
                : List.of("-N3", "-w", "node[1-3]", "--exclusive", GPUS);
        String jobId = cluster.submit(script, options);
        try {
            SupervisedSteps.awaitFirstAttempt(cluster, jobId, FIRST_START);
            // The probes greet node2's agent from their first round: wait for it, so its death is one it saw.
            Timeline.awaitWatch(cluster, jobId, Duration.ofSeconds(30));
            long killed = System.nanoTime();
            Instant killedAt = Instant.now();
            cluster.killNode("node2");
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            long seconds = Duration.ofNanos(System.nanoTime() - killed).toSeconds();
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("SRUN_EXIT=0"), output);
            assertFalse(output.contains("attempt=1 node=node3"), "the spare stays idle at first: " + output);
            // The first attempt, launched before the job is read, is told the step's nodes as re-runs are.
            for (String node : List.of("node1", "node2")) {
                assertTrue(
                        output.contains("attempt=1 node=" + node
                                + " list=node[1-2] master=127.0.0.1 mnode=node1 nnodes=2" + " gpus=0,1\n"),
                        output);
            }
            assertTrue(
                    output.contains(
                            "attempt=2 node=node1 list=node[1,3] master=127.0.0.1 mnode=node1 nnodes=2 gpus=0,1\n"),
                    output);
            // The spare's own GPUs, handed out by Slurm's gres/gpu plugin to the re-run.
            assertTrue(
                    output.contains(
                            "attempt=2 node=node3 list=node[1,3] master=127.0.0.1 mnode=node1 nnodes=2 gpus=0,1\n"),
                    output);
            // 22.05 spells it gres:gpu:2, 24.11 gres/gpu:2.
            assertEquals("gres/gpu:2", truth.jobField(jobId, "TresPerNode").replace("gres:", "gres/"));
            assertEquals("node[1,3]", truth.jobField(jobId, "NodeList"));
            assertTrue(truth.nodeField("node2", "State").contains("FAIL"), truth.nodeField("node2", "State"));
            assertTrue(
                    truth.nodeField("node2", "Reason").startsWith("Action:Replace"),
                    truth.nodeField("node2", "Reason"));
            Timeline timeline = Timeline.of(cluster, jobId);
            assertFalse(nodeAgents.alive("node2"), "kill-node kills the node's agent with the rest of it");
            // node2's agent, which had answered the probes, and its slurmd both refused: probed at the faster pace.
            Timeline.Event detection = timeline.only(Timeline.Kind.DETECTION);
            assertEquals(
                    List.of("slurmd-probe", "node2", "node2"),
                    List.of(detection.detail("source"), detection.detail("nodes"), detection.detail("gone")),
                    timeline.toString());
            Timeline.Event replacement = timeline.only(Timeline.Kind.REPLACEMENT);
            assertEquals(
                    List.of("in-job-spare", "node2", "node3", "node[1,3]"),
                    List.of(
                            replacement.detail("path"),
                            replacement.faultyNodes(),
                            replacement.detail("spares"),
                            replacement.detail("stepNodes")),
                    timeline.toString());
            assertEquals("node[1,3]", replacement.nodeList(), timeline.toString());
            assertEquals(List.of(1, 2), timeline.launchedAttempts(), timeline.toString());
            output.lines()
                    .filter(l -> l.contains("spare") || l.contains("attempt="))
                    .forEach(System.out::println);
            FaultMatrix.row(
                    noKill ? "dead-node-no-kill" : "dead-node",
                    killedAt,
                    timeline,
                    done.state().name());
            System.out.println("in-job spare recovery (" + (noKill ? "--no-kill" : "default") + "): job ended "
                    + seconds + " s after the kill, the re-run " + replacement.latency()
                    + " ms after the failed step ended");
        } finally {
            cluster.run(List.of("scancel", jobId));
            cluster.reviveNode("node2");
            cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
            nodeAgents.restartKilled(cluster);
        }
    }

    @Test
    void twoFaultsInARowTakeTheJobsTwoSpares() throws Exception {
        String script = """
                #!/bin/bash
                export AUTORESUME_AGENT_SOCKET=%s
                srun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c '
                  echo "attempt=$AUTO_RESUME_ATTEMPT node=$SLURMD_NODENAME list=$NODE_LIST master=$MASTER_ADDR gpus=${CUDA_VISIBLE_DEVICES-none}"
                  if [ "$AUTO_RESUME_ATTEMPT" -lt 3 ]; then touch "$SLURM_JOB_ID.up$AUTO_RESUME_ATTEMPT.$SLURMD_NODENAME"; sleep 300; fi'
                echo "SRUN_EXIT=$?"
                """.formatted(supervised.agent().socket());
        String jobId = cluster.submit(script, List.of("-N4", "-w", "node[1-4]", "--exclusive", GPUS));
        try {
            waitForTasks(jobId, 1, "node1", "node2");
            cluster.killNode("node2");
            waitForTasks(jobId, 2, "node1", "node3");
            cluster.killNode("node3");
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("attempt=3 node=node1 list=node[1,4] master=127.0.0.1 gpus=0,1"), output);
            assertTrue(output.contains("attempt=3 node=node4 list=node[1,4] master=127.0.0.1 gpus=0,1"), output);
            assertEquals("node[1,4]", truth.jobField(jobId, "NodeList"));
            for (String node : List.of("node2", "node3")) {
                assertTrue(
                        truth.nodeField(node, "State").contains("FAIL"), node + " " + truth.nodeField(node, "State"));
            }
            Timeline timeline = Timeline.of(cluster, jobId);
            List<Timeline.Event> replacements = timeline.all(Timeline.Kind.REPLACEMENT);
            assertEquals(
                    List.of("in-job-spare:node2:node[1,3]", "in-job-spare:node3:node[1,4]"),
                    replacements.stream()
                            .map(e -> e.detail("path") + ":" + e.faultyNodes() + ":" + e.detail("stepNodes"))
                            .toList(),
                    timeline.toString());
            assertEquals(List.of(1, 2, 3), timeline.launchedAttempts(), timeline.toString());
        } finally {
            cluster.run(List.of("scancel", jobId));
            for (String node : List.of("node2", "node3")) {
                cluster.reviveNode(node);
                cluster.run(List.of("scontrol", "update", "nodename=" + node, "state=resume"));
            }
            nodeAgents.restartKilled(cluster);
        }
    }

    private static void waitForTasks(String jobId, int attempt, String... nodes) {
        Wait.until(
                "attempt " + attempt + " of job " + jobId + " to run on " + String.join(" and ", nodes),
                attempt == 1 ? FIRST_START : Duration.ofSeconds(90),
                () -> Arrays.stream(nodes)
                                .allMatch(node ->
                                        Files.exists(cluster.jobsDir().resolve(jobId + ".up" + attempt + "." + node)))
                        ? Optional.of(true)
                        : Optional.empty());
    }
}
