package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/** {@code autoresume env} inside real sbatch jobs run as the ordinary test user. */
class EnvCommandIT {

    private static LocalCluster cluster;
    private static SlurmTruth truth;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
    }

    @Test
    void envInsideABatchJobMatchesScontrol() {
        String script = """
                #!/bin/bash
                set -euo pipefail
                eval "$('%s' env)"
                printf 'NODE_LIST=%%s\\nMASTER_NODE=%%s\\nMASTER_ADDR=%%s\\nNNODES=%%s\\n' \\
                    "$NODE_LIST" "$MASTER_NODE" "$MASTER_ADDR" "$NNODES"
                """.formatted(cluster.launcher());
        String jobId = cluster.submit(script, List.of("-N2", "--job-name=env-check"));
        Job job = cluster.waitForJobEnd(jobId, Duration.ofSeconds(90));
        assertEquals(JobState.COMPLETED, job.state(), () -> cluster.jobOutput(jobId));

        Map<String, String> printed = keyValues(cluster.jobOutput(jobId));
        String nodeList = truth.jobField(jobId, "NodeList");
        List<String> hosts = truth.hostnames(nodeList);
        assertEquals(2, hosts.size());
        assertEquals(nodeList, printed.get("NODE_LIST"));
        assertEquals(hosts.get(0), printed.get("MASTER_NODE"));
        assertEquals(truth.nodeField(hosts.get(0), "NodeAddr"), printed.get("MASTER_ADDR"));
        assertEquals("2", printed.get("NNODES"));
    }

    /**
     * A --no-kill job loses a node: Slurm shrinks it, $SLURM_JOB_NODELIST is stale, and
     * `autoresume env --slurm-vars` gives the shrunk node list and sizes that let a new srun start.
     */
    @Test
    void envFollowsTheJobAfterItShrinksOnANodeFailure() {
        String script = """
                #!/bin/bash
                set -uo pipefail
                echo "STALE_NODELIST=$SLURM_JOB_NODELIST"
                srun -N3 sleep 600
                echo "STEP_EXIT=$?"
                eval "$('%s' env --slurm-vars)"
                printf 'NODE_LIST=%%s\\nMASTER_NODE=%%s\\nMASTER_ADDR=%%s\\nNNODES=%%s\\n' \\
                    "$NODE_LIST" "$MASTER_NODE" "$MASTER_ADDR" "$NNODES"
                srun -N"$NNODES" hostname > "hosts-$SLURM_JOB_ID.txt"
                echo "SRUN_EXIT=$?"
                echo "SRUN_HOSTS=$(wc -l < "hosts-$SLURM_JOB_ID.txt")"
                """.formatted(cluster.launcher());
        String jobId = cluster.submit(script, List.of("-N3", "--no-kill", "--job-name=env-shrink"));
        // A first start may wait for nodes an earlier class's resized job left PLANNED (docs/slurm-behaviour.md);
        // the job is cancelled whatever happens, or its 10-minute step would hold three nodes for the classes after.
        Job running;
        try {
            running = cluster.waitForJob(
                    jobId,
                    "to run its 3-node step",
                    Duration.ofSeconds(300),
                    j -> j.state() == JobState.RUNNING
                            && cluster.slurm().steps(jobId).stream()
                                    .anyMatch(s -> s.stepId().equals("0") && "RUNNING".equals(s.state())));
        } catch (AssertionError e) {
            cluster.run(List.of("scancel", jobId));
            throw e;
        }
        List<String> before = truth.hostnames(running.nodeList());
        String victim = before.stream()
                .filter(n -> !n.equals(running.batchHost().orElse("")))
                .reduce((a, b) -> b)
                .orElseThrow();
        try {
            cluster.killNode(victim);
            // What slurmctld does at SlurmdTimeout (300 s on the local cluster), done now.
            cluster.run(List.of("scontrol", "update", "nodename=" + victim, "state=down", "reason=test: node killed"));
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);

            Map<String, String> printed = keyValues(output);
            String nodeList = truth.jobField(jobId, "NodeList");
            List<String> after = truth.hostnames(nodeList);
            assertEquals(2, after.size(), "job did not shrink to its 2 healthy nodes: " + nodeList);
            assertFalse(after.contains(victim));
            assertEquals(truth.hostnames(printed.get("STALE_NODELIST")), before, "test premise");
            assertEquals(nodeList, printed.get("NODE_LIST"));
            assertEquals(after.get(0), printed.get("MASTER_NODE"));
            assertEquals(truth.nodeField(after.get(0), "NodeAddr"), printed.get("MASTER_ADDR"));
            assertEquals("2", printed.get("NNODES"));
            assertTrue(!"0".equals(printed.get("STEP_EXIT")), "the step on the killed node should have failed");
            assertEquals("0", printed.get("SRUN_EXIT"), output);
            assertEquals("2", printed.get("SRUN_HOSTS"), output);
        } finally {
            cluster.run(List.of("scancel", jobId));
            cluster.reviveNode(victim);
            cluster.run(List.of("scontrol", "update", "nodename=" + victim, "state=resume"));
        }
    }

    private static Map<String, String> keyValues(String output) {
        Map<String, String> values = new HashMap<>();
        for (String line : output.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0 && line.substring(0, eq).matches("[A-Z_]+")) {
                values.put(line.substring(0, eq), line.substring(eq + 1).strip());
            }
        }
        return values;
    }
}
