package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * A restart loop on real Slurm: a step that fails the same way on every attempt, from another
 * rank on another node each time, with a restart budget far larger than the failures. The
 * supervisor stops at the third identical failure, ends with the step's status, and leaves the
 * job ended in Slurm, not requeued.
 */
class RepeatedFailureIT {

    private static LocalCluster cluster;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
    }

    @Test
    void theThirdIdenticalFailureEndsTheStepLongBeforeItsBudget() {
        // Each attempt one task fails (rank and node change with the attempt), as a CUDA fault does.
        String jobId = cluster.submit("""
                #!/bin/bash
                export AUTORESUME_MAX_APP_RETRIES=10
                '%s' supervise -- srun -N2 --ntasks-per-node=1 bash -c '
                  echo "attempt $AUTO_RESUME_ATTEMPT rank $SLURM_PROCID on $SLURMD_NODENAME"
                  if [ $(( (AUTO_RESUME_ATTEMPT + SLURM_PROCID) %% 2 )) -eq 0 ]; then
                    echo "Traceback (most recent call last):" >&2
                    echo "RuntimeError: CUDA error: an illegal memory access was encountered" \\
                      "(rank $SLURM_PROCID on $SLURMD_NODENAME at $(date +%%T.%%N))" >&2
                    exit 1
                  fi'
                exit $?
                """.formatted(cluster.launcher()), List.of("-N2", "--requeue"));
        Job job = cluster.waitForJobEnd(jobId, Duration.ofSeconds(90));
        String output = cluster.jobOutput(jobId);

        assertEquals(JobState.FAILED, job.state(), output);
        assertEquals(1, job.exitCode().orElseThrow().status(), output);
        assertEquals(0, job.restarts(), "the job was not requeued: " + output);
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(List.of(1, 2, 3), timeline.launchedAttempts(), timeline.toString());
        assertEquals(List.of("APP_FAILURE", "APP_FAILURE", "APP_FAILURE"), timeline.outcomes(), timeline.toString());
        Timeline.Event repeated = timeline.only(Timeline.Kind.REPEATED_FAILURE);
        assertEquals("1,2,3", repeated.detail("attempts"), timeline.toString());
        assertEquals(3, repeated.attempt(), timeline.toString());
        assertTrue(repeated.detail("signature").contains("illegal memory access"), timeline.toString());
        assertEquals(1, timeline.only(Timeline.Kind.GIVE_UP).status(), timeline.toString());
        assertEquals(
                List.of("RERUN_IN_PLACE", "RERUN_IN_PLACE"),
                timeline.all(Timeline.Kind.DECISION).stream()
                        .map(Timeline.Event::level)
                        .toList(),
                "two restarts made, eight left unused: " + timeline);
        assertTrue(timeline.all(Timeline.Kind.REQUEUE).isEmpty(), timeline.toString());
    }
}
