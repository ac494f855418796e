package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * A 2-node step started with {@code srun --auto-resume=1} loses a node mid-step (its slurmd and
 * tasks killed): the supervisor notices through its own probes, the root agent marks the node
 * FAIL with Action:Replace, the job drops it and grows onto a spare, and the step runs again
 * with a fresh NODE_LIST and MASTER_ADDR; the job ends COMPLETED. With and without --no-kill.
 */
@Tag(LocalCluster.CPU_ONLY) // the spare comes from outside the job: job expansion, refused on the GPU shape
class NodeFaultRecoveryIT {

    private static final String PREFIX = "85-node-fault-it-";
    private static LocalCluster cluster;
    private static SlurmTruth truth;
    private static SupervisedSteps supervised;
    private static Path socket;

    @BeforeAll
    static void startAgentAndPlugin() {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
        supervised = SupervisedSteps.start(cluster, PREFIX);
        socket = supervised.agent().socket();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        SupervisedSteps.stop(supervised);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void theStepRunsAgainOnASpareAfterANodeDies(boolean noKill) throws Exception {
        String script = """
                #!/bin/bash
                export AUTORESUME_SPARE_NODES=node4 AUTORESUME_AGENT_SOCKET=%s
                srun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c '
                  echo "attempt=$AUTO_RESUME_ATTEMPT node=$SLURMD_NODENAME list=$NODE_LIST master=$MASTER_ADDR"
                  if [ "$AUTO_RESUME_ATTEMPT" = 1 ]; then touch "$SLURM_JOB_ID.up.$SLURM_PROCID"; sleep 300; fi'
                echo "SRUN_EXIT=$?"
                """.formatted(socket);
        List<String> options = noKill
                ? List.of("-N2", "-w", "node[1-2]", "--exclusive", "--no-kill")
                : List.of("-N2", "-w", "node[1-2]", "--exclusive");
        String jobId = cluster.submit(script, options);
        try {
            Wait.until(
                    "both tasks of job " + jobId + " to run",
                    Duration.ofSeconds(60),
                    () -> Files.exists(cluster.jobsDir().resolve(jobId + ".up.0"))
                                    && Files.exists(cluster.jobsDir().resolve(jobId + ".up.1"))
                            ? Optional.of(true)
                            : Optional.empty());
            long killed = System.nanoTime();
            cluster.killNode("node2");
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            long seconds = Duration.ofNanos(System.nanoTime() - killed).toSeconds();
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("SRUN_EXIT=0"), output);
            assertTrue(output.contains("attempt=2 node=node1 list=node[1,4] master=127.0.0.1"), output);
            assertTrue(output.contains("attempt=2 node=node4 list=node[1,4] master=127.0.0.1"), output);
            assertTrue(truth.nodeField("node2", "State").contains("FAIL"), truth.nodeField("node2", "State"));
            assertTrue(
                    truth.nodeField("node2", "Reason").startsWith("Action:Replace"),
                    truth.nodeField("node2", "Reason"));
            assertEquals("node[1,4]", truth.jobField(jobId, "NodeList"));
            Timeline timeline = Timeline.of(cluster, jobId);
            Timeline.Event replacement = timeline.only(Timeline.Kind.REPLACEMENT);
            assertEquals(
                    List.of("node2", "node[1,4]"),
                    List.of(replacement.faultyNodes(), replacement.nodeList()),
                    timeline.toString());
            assertEquals(
                    "REPLACE_NODES_AND_RERUN",
                    timeline.only(Timeline.Kind.DECISION).level(),
                    timeline.toString());
            assertEquals(List.of(1, 2), timeline.launchedAttempts(), timeline.toString());
            System.out.println("node fault recovery (" + (noKill ? "--no-kill" : "default") + "): job ended " + seconds
                    + " s after the kill");
        } finally {
            cluster.run(List.of("scancel", jobId));
            cluster.reviveNode("node2");
            cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
        }
    }
}
