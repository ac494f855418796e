package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;

/**
 * The most common fault of large training runs: a GPU fails on a node that stays up. node2's
 * own agent sees the driver's Xid 79 in node2's kernel log and marks node2 at once; the
 * training tasks on node2 then die (as CUDA errors kill them) while node2's slurmd keeps
 * answering. The supervisor finds node2 marked, takes the node-fault path, and re-runs the step
 * on node1 and the job's spare; the job completes, and node2 keeps the reason its agent wrote.
 */
class GpuFaultRecoveryIT {

    private static final Duration FIRST_START = Duration.ofSeconds(300);
    private static final String PREFIX = "85-gpu-fault-it-";
    private static LocalCluster cluster;
    private static SupervisedSteps supervised;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.get();
        // The agent the job's supervisor talks to is node2's own, watching node2's kernel log.
        supervised = SupervisedSteps.start(cluster, PREFIX, "--node", "node2",
                "--xid-source", cluster.kernelLog("node2").toString());
    }

    @AfterAll
    static void stop() throws InterruptedException {
        SupervisedSteps.stop(supervised);
    }

    @Test
    void aGpuFaultOnALiveNodeMovesTheStepToTheSpare() throws Exception {
        String script = """
                #!/bin/bash
                export AUTORESUME_AGENT_SOCKET=%s
                srun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c '
                  echo "attempt=$AUTO_RESUME_ATTEMPT node=$SLURMD_NODENAME list=$NODE_LIST"
                  if [ "$AUTO_RESUME_ATTEMPT" = 1 ]; then touch "$SLURM_JOB_ID.up.$SLURMD_NODENAME"; sleep 300; fi'
                echo "SRUN_EXIT=$?"
                """.formatted(supervised.agent().socket());
        String jobId = cluster.submit(script, List.of("-N3", "-w", "node[1-3]", "--exclusive"));
        try {
            Wait.until("the step of job " + jobId + " to run on node1 and node2", FIRST_START, () ->
                    Files.exists(cluster.jobsDir().resolve(jobId + ".up.node1"))
                            && Files.exists(cluster.jobsDir().resolve(jobId + ".up.node2")) ? Optional.of(true) : Optional.empty());
            long injected = System.nanoTime();
            cluster.gpuFault("node2", 79);
            Wait.until("node2's agent to mark it", Duration.ofSeconds(30), () ->
                    node("node2").state().isFail() ? Optional.of(true) : Optional.empty());
            long markedMs = (System.nanoTime() - injected) / 1_000_000;
            cluster.crashTask("node2");
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("SRUN_EXIT=0"), output);
            assertTrue(output.contains("attempt=2 node=node1 list=node[1,3]"), output);
            assertTrue(output.contains("attempt=2 node=node3 list=node[1,3]"), output);
            Node node2 = node("node2");
            assertTrue(node2.state().isFail(), node2.state().display());
            assertFalse(node2.state().notResponding(), "node2 stayed up: " + node2.state().display());
            String reason = node2.reason().map(NodeReason::text).orElse("");
            assertTrue(reason.startsWith("Action:Reboot Xid 79 GPU PCI:0000:3b:00"), "the agent's evidence kept: " + reason);
            for (String other : List.of("node1", "node3", "node4")) {
                assertTrue(node(other).state().isSchedulable() || !node(other).state().isFail(),
                        other + " " + node(other).state().display());
            }
            Timeline timeline = Timeline.of(cluster, jobId);
            Timeline.Event replacement = timeline.only(Timeline.Kind.REPLACEMENT);
            assertEquals(List.of("in-job-spare", "node2", "node[1,3]"), List.of(replacement.detail("path"),
                    replacement.faultyNodes(), replacement.detail("stepNodes")), timeline.toString());
            assertEquals(List.of(1, 2), timeline.launchedAttempts(), timeline.toString());
            System.out.printf("GPU fault on a live node: marked %d ms after the Xid, re-run %d ms after the failed"
                    + " step ended%n", markedMs, replacement.latency());
        } finally {
            cluster.run(List.of("scancel", jobId));
            cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
        }
    }

    private static Node node(String name) {
        return cluster.slurm().node(name).orElseThrow(() -> new AssertionError("no node " + name));
    }
}
