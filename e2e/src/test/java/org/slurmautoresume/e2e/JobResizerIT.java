package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.supervisor.recovery.JobResizer;

/**
 * Shrinking a running job and growing it back through a donor allocation, done as the job's
 * owner (the ordinary test user), on the real controller.
 */
@Tag(LocalCluster.CPU_ONLY) // growing a job back is job expansion, refused on the GPU shape
class JobResizerIT {

    private static LocalCluster cluster;
    private static SlurmTruth truth;
    private static JobResizer resizer;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
        CommandRunner asOwner = cluster::runAsTestUser;
        resizer = new JobResizer(asOwner, new SlurmClient(asOwner), Duration.ofSeconds(10));
    }

    /**
     * Submits a job holding the nodes and waits until it runs. In full-suite runs a job asking
     * for the nodes of a job the previous test had resized and cancelled has waited with
     * Reason=Resources ("Requested nodes are busy" to the backfill planner, nodes IDLE+PLANNED)
     * until slurmctld's next ping of those nodes, which comes every SlurmdTimeout/3 (100 s here):
     * one to three and a half minutes (docs/slurm-behaviour.md: at most about two ping intervals,
     * 204 s the longest seen). So this waits up to 300 s and prints what
     * the cluster looked like when the start was slow.
     */
    private static String holdNodes(String nodes, int count, String name) {
        String jobId = cluster.submit(
                "#!/bin/bash\nsleep 300\n",
                List.of("-N" + count, "-w", nodes, "--no-kill", "--exclusive", "--job-name=" + name));
        long submitted = System.nanoTime();
        String early = "";
        try {
            cluster.waitForJob(jobId, "to run", Duration.ofSeconds(20), j -> j.state() == JobState.RUNNING);
        } catch (AssertionError slow) {
            early = clusterPicture(nodes);
            try {
                cluster.waitForJob(jobId, "to run", Duration.ofSeconds(280), j -> j.state() == JobState.RUNNING);
            } catch (AssertionError notStarted) {
                String why = early + "\n300 s after submission:\n" + clusterPicture(nodes);
                cancel(jobId); // the caller never learns its id: left behind it would hold the nodes for later tests
                throw new AssertionError(notStarted.getMessage() + "\n" + why, notStarted);
            }
            System.out.printf(
                    "note: job %s (%s) started %d s after submission; 20 s after it, the cluster was:%n%s%n",
                    jobId,
                    nodes,
                    Duration.ofNanos(System.nanoTime() - submitted).toSeconds(),
                    early);
        }
        return jobId;
    }

    /** Every job Slurm still remembers, the nodes' records and each slurmd's process state. */
    private static String clusterPicture(String nodes) {
        return cluster.run(List.of("squeue", "-h", "-t", "all", "-o", "%A %T %R %N %j start=%S end=%e"))
                        .stdout()
                + cluster.run(List.of("scontrol", "-o", "show", "node", nodes)).stdout()
                + cluster.run(List.of("ps", "-o", "pid,stat,wchan:32,lstart,args", "-C", "slurmd"))
                        .stdout();
    }

    /**
     * Cancels the job and waits until Slurm has cleaned up after it on every node: the next test
     * asks for the same nodes at once.
     */
    private static void cancel(String jobId) {
        cluster.run(List.of("scancel", jobId));
        cluster.waitForJobEnd(jobId, Duration.ofSeconds(60));
        Wait.until("no node still completing job " + jobId, Duration.ofSeconds(60), () -> {
            String completing = cluster.run(List.of("sinfo", "-h", "-N", "-t", "completing", "-o", "%N"))
                    .stdout()
                    .strip();
            return completing.isEmpty() ? Optional.of(true) : Optional.empty();
        });
    }

    private static void assertNoDonorLeft(String jobId) {
        Wait.until("no donor job of " + jobId + " left", Duration.ofSeconds(30), () -> {
            String active = cluster.run(
                            List.of("squeue", "-h", "-t", "PD,R,CF,CG", "-o", "%A", "--name=autoresume-donor-" + jobId))
                    .stdout()
                    .strip();
            return active.isEmpty() ? Optional.of(true) : Optional.empty();
        });
    }

    @Test
    void shrinksToTheHealthyNodesAndGrowsBackOntoAReplacement() {
        String jobId = holdNodes("node[2-3]", 2, "resize-it");
        try {
            Job shrunk = resizer.shrink(JobId.parse(jobId), List.of("node3"));
            assertEquals("node2", shrunk.nodeList());
            assertEquals("node2", truth.jobField(jobId, "NodeList"));

            Job grown = resizer.grow(JobId.parse(jobId), List.of("node4"));
            assertEquals("node[2,4]", grown.nodeList());
            assertEquals("node[2,4]", truth.jobField(jobId, "NodeList"));
            assertEquals("2", truth.jobField(jobId, "NumNodes"));
            assertNoDonorLeft(jobId);

            // The grown job runs a step on its new node set.
            var step = cluster.runAsTestUser(List.of("srun", "--jobid=" + jobId, "-N2", "--overlap", "hostname"));
            assertEquals(0, step.exitCode(), step.stderr());
        } finally {
            cancel(jobId);
        }
    }

    @Test
    void theBatchHostIsNeverDropped() {
        String jobId = holdNodes("node[2-3]", 2, "resize-batch-it");
        try {
            String batchHost = truth.jobField(jobId, "BatchHost");
            SlurmException e =
                    assertThrows(SlurmException.class, () -> resizer.shrink(JobId.parse(jobId), List.of(batchHost)));
            assertTrue(e.getMessage().contains("batch host"), e.getMessage());
            assertEquals("node[2-3]", truth.jobField(jobId, "NodeList"));
        } finally {
            cancel(jobId);
        }
    }

    @Test
    void aReplacementThatIsNotFreeTimesOutAndLeavesNoDonor() {
        String jobId = holdNodes("node2", 1, "resize-busy-it");
        String blocker = holdNodes("node4", 1, "resize-blocker-it");
        try {
            SlurmException e =
                    assertThrows(SlurmException.class, () -> resizer.grow(JobId.parse(jobId), List.of("node4")));
            assertEquals(SlurmException.Kind.TIMEOUT, e.kind(), e.getMessage());
            assertNoDonorLeft(jobId);
            assertEquals("node2", truth.jobField(jobId, "NodeList"));
        } finally {
            cancel(blocker);
            cancel(jobId);
        }
    }
}
