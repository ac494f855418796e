package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * Right after slurmctld restarted with its saved state, every node is UNKNOWN until its slurmd
 * registers again, and a step that names such a node is refused as "Memory required by task is
 * not available" (docs/slurm-behaviour.md, "After a slurmctld restart: steps and memory"). The
 * supervisor waits for the registration and starts the same srun again, spending no budget.
 */
class RestartedControllerStepIT {

    private static final String PREFIX = "86-restarted-controller-step-it-";
    private static LocalCluster cluster;
    private static SupervisedSteps supervised;

    @BeforeAll
    static void startAgentAndPlugin() {
        cluster = LocalCluster.get();
        supervised = SupervisedSteps.start(cluster, PREFIX);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        SupervisedSteps.stop(supervised);
    }

    @Test
    void aStepRefusedBeforeTheNodesRegisteredRunsOnceTheyDid() throws Exception {
        // A step on node[1-2] lives through the restart; the supervised one (node1 and node3, as a
        // re-run after a node fault is placed) starts only when the test says go.
        String script = """
                #!/bin/bash
                export AUTORESUME_AGENT_SOCKET=%s
                srun -N2 -w node[1-2] --ntasks-per-node=1 bash -c 'touch "$SLURM_JOB_ID.up.$SLURMD_NODENAME"; sleep 300' &
                while [ ! -e "$SLURM_JOB_ID.go" ]; do sleep 0.2; done
                srun --auto-resume=1 --overlap -N2 -w node[1,3] --ntasks-per-node=1 bash -c 'echo "attempt=$AUTO_RESUME_ATTEMPT node=$SLURMD_NODENAME"'
                echo "SRUN_EXIT=$?"
                """.formatted(supervised.agent().socket());
        String jobId = cluster.submit(script, List.of("-N3", "-w", "node[1-3]", "--exclusive", "--gpus-per-node=2"));
        try {
            SupervisedSteps.awaitFirstAttempt(cluster, jobId, Duration.ofSeconds(300));
            localCluster("stop-controller");
            localCluster("start-controller");
            cluster.writeJobsFile(jobId + ".go", "", "rw-r--r--"); // within the 3 s slurmd needs to register
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(200));

            String output = cluster.jobOutput(jobId);
            assertTrue(output.contains("SRUN_EXIT=0"), output);
            assertTrue(output.contains("attempt=2 node=node1") && output.contains("attempt=2 node=node3"), output);
            assertEquals(JobState.COMPLETED, done.state(), output);
            Timeline timeline = Timeline.of(cluster, jobId);
            List<String> outcomes = timeline.all(Timeline.Kind.ATTEMPT_ENDED).stream()
                    .map(e -> e.detail("outcome"))
                    .toList();
            assertEquals(List.of("NOT_STARTED", "SUCCEEDED"), outcomes, timeline.toString());
            assertTrue(
                    timeline.all(Timeline.Kind.ATTEMPT_ENDED)
                            .get(0)
                            .detail("reason")
                            .contains("Memory required by task is not available"),
                    timeline.toString());
            assertTrue(timeline.all(Timeline.Kind.DECISION).isEmpty(), "no budget spent: " + timeline);
            System.out.println("restarted controller: attempts " + outcomes);
        } finally {
            cluster.run(List.of("scancel", jobId));
        }
    }

    private static void localCluster(String command) {
        CommandResult result = cluster.run(
                List.of(cluster.repo().resolve("local-cluster/local-cluster.sh").toString(), command));
        assertTrue(result.succeeded(), () -> command + " failed:\n" + result.stdout() + result.stderr());
    }
}
