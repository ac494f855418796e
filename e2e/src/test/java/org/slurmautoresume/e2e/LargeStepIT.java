package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * A step of 32 nodes: the cluster is brought up with 33 slurmd for this class (and back after),
 * a 33-node job runs {@code srun --auto-resume=1 -N32}, node33 its in-job spare. A node in the
 * middle of the step dies; the supervisor's probes of 32 slurmd find it, the step runs again on
 * the 31 others and the spare, every task told the step's 32 nodes, and the job completes.
 * It runs in an execution of its own, last, so the cluster is brought up large once.
 */
@Tag(LocalCluster.LARGE_STEP)
class LargeStepIT {

    private static final int STEP_NODES = 32;
    private static final String VICTIM = "node17";
    private static final Duration FIRST_START = Duration.ofSeconds(300);
    private static final String PREFIX = "84-large-step-it-";

    private static LocalCluster cluster;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
    }

    @Test
    void aThirtyTwoNodeStepRunsAgainOnTheSpareAfterANodeInTheMiddleDies() throws Exception {
        cluster.withNodes(STEP_NODES + 1, LargeStepIT::loseANodeOfTheStep);
    }

    private static void loseANodeOfTheStep() throws Exception {
        SupervisedSteps supervised = SupervisedSteps.start(cluster, PREFIX, "--node", "node1");
        String jobId = null;
        try {
            String script = """
                    #!/bin/bash
                    export AUTORESUME_AGENT_SOCKET=%s
                    srun --auto-resume=1 -N%d --ntasks-per-node=1 bash -c '
                      echo "attempt=$AUTO_RESUME_ATTEMPT node=$SLURMD_NODENAME nnodes=$NNODES list=$NODE_LIST t=$(date +%%s.%%N)"
                      if [ "$AUTO_RESUME_ATTEMPT" = 1 ]; then touch "$SLURM_JOB_ID.up.$SLURMD_NODENAME"; sleep 300; fi'
                    echo "SRUN_EXIT=$?"
                    """.formatted(supervised.agent().socket(), STEP_NODES);
            jobId = cluster.submit(
                    script, List.of("-N" + (STEP_NODES + 1), "-w", "node[1-" + (STEP_NODES + 1) + "]", "--exclusive"));
            String id = jobId;
            List<String> stepNodes = IntStream.rangeClosed(1, STEP_NODES)
                    .mapToObj(i -> "node" + i)
                    .toList();
            Wait.until(
                    "the " + STEP_NODES + " tasks of job " + jobId + " to run",
                    FIRST_START,
                    () -> stepNodes.stream()
                                    .allMatch(
                                            n -> Files.exists(cluster.jobsDir().resolve(id + ".up." + n)))
                            ? Optional.of(true)
                            : Optional.empty());
            Timeline.awaitWatch(cluster, jobId, Duration.ofSeconds(30));
            Instant killed = Instant.now();
            cluster.killNode(VICTIM);
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("SRUN_EXIT=0"), output);
            List<String> again =
                    output.lines().filter(l -> l.startsWith("attempt=2 ")).toList();
            String list = "node[1-16,33,18-32]"; // the spare takes node17's place: ranks keep their nodes
            assertEquals(STEP_NODES, again.size(), output);
            assertTrue(
                    again.stream().allMatch(l -> l.contains(" nnodes=" + STEP_NODES + " list=" + list + " ")), output);
            assertTrue(again.stream().anyMatch(l -> l.startsWith("attempt=2 node=node33 ")), output);
            assertFalse(again.stream().anyMatch(l -> l.startsWith("attempt=2 node=" + VICTIM + " ")), output);
            Timeline timeline = Timeline.of(cluster, jobId);
            assertEquals(List.of(1, 2), timeline.launchedAttempts(), timeline.toString());
            Timeline.Event detection = timeline.only(Timeline.Kind.DETECTION);
            assertEquals(VICTIM, detection.detail("nodes"), timeline.toString());
            double lastStart = again.stream()
                    .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(" t=") + 3)))
                    .max()
                    .orElseThrow();
            System.out.printf(
                    "%d-node step: all tasks running again %.1f s after %s was killed (detection %s ms)%n",
                    STEP_NODES,
                    lastStart - killed.toEpochMilli() / 1000.0,
                    VICTIM,
                    detection.latencyMs().isPresent() ? detection.latencyMs().getAsLong() : -1);
        } finally {
            if (jobId != null) {
                cluster.run(List.of("scancel", jobId));
            }
            cluster.reviveNode(VICTIM);
            cluster.run(List.of("scontrol", "update", "nodename=" + VICTIM, "state=resume"));
            SupervisedSteps.stop(supervised);
        }
    }
}
