package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;

/**
 * A site whose HealthCheckProgram is LBNL NHC: NHC drains a node whose check
 * fails with a reason that starts {@code NHC:}, and that drain is the node's verdict. The local
 * cluster's slurmd runs a stand-in for NHC as its HealthCheckProgram every 5 s (NHC is not in
 * Debian's archive; {@code local-cluster.sh nhc-fail}); node2's check fails under a supervised
 * step, slurmd's run of it drains node2 as NHC would, and the step's ranks then die. The step runs
 * again on the spare. node2 stays NHC's: drained with NHC's reason, which NHC lifts once its check
 * passes; the agent writes nothing over it. A drain alone never ends the running step.
 */
class NhcDrainIT {

    private static final Duration FIRST_START = Duration.ofSeconds(300);
    private static final String PREFIX = "84-nhc-drain-it-";
    private static final String NHC_CHECK = "check_nv_healthmon: GPU 2 has fallen off the bus";
    private static final String NHC_REASON = "NHC: " + NHC_CHECK;
    private static LocalCluster cluster;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.get();
    }

    @Test
    void aStepThatFailsOnANodeNhcDrainedRunsAgainOnTheSpareAndTheNodeStaysNhcs() throws Exception {
        SupervisedSteps supervised = SupervisedSteps.start(cluster, PREFIX, "--node", "node2", "--xid-source", "off");
        String jobId = null;
        try {
            jobId = supervised.stepWithSpare(cluster, FIRST_START);
            CommandResult failed = cluster.nhcFail("node2", NHC_CHECK);
            assertEquals(0, failed.exitCode(), failed.stderr());
            // slurmd runs the HealthCheckProgram every 5 s.
            Node drained = Wait.until("slurmd's health check to drain node2", Duration.ofSeconds(30), () -> {
                Node node = cluster.node("node2");
                return node.state().isDrain() ? Optional.of(node) : Optional.empty();
            });
            assertEquals(NHC_REASON, drained.reason().map(NodeReason::text).orElse(""));
            // A drain lets the step run on: the supervisor's periodic read of its nodes (every minute
            // or five) does not end a step for a drain whose reason is not an Action: (a unit test
            // holds that); what ends this one is its ranks dying below.
            assertEquals(
                    JobState.RUNNING, cluster.slurm().job(jobId).orElseThrow().state(), cluster.jobOutput(jobId));
            assertFalse(cluster.jobOutput(jobId).contains("attempt=2"), cluster.jobOutput(jobId));

            // The GPU fault kills node2's rank, and the collective takes node1's with it.
            cluster.crashTask("node2");
            cluster.crashTask("node1");
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(
                    output.contains("attempt=2 node=node1 list=node[1,3]") && output.contains("attempt=2 node=node3"),
                    output);
            assertFalse(output.contains("attempt=2 node=node2"), output);
            Timeline timeline = Timeline.of(cluster, jobId);
            Timeline.Event ended = timeline.all(Timeline.Kind.ATTEMPT_ENDED).get(0);
            assertEquals("NODE_FAULT", ended.detail("outcome"), timeline.toString());
            assertTrue(ended.detail("reason").contains(NHC_REASON), timeline.toString());
            Node node2 = cluster.node("node2");
            assertTrue(
                    node2.state().isDrain() && !node2.state().isFail(),
                    node2.state().display());
            assertEquals(NHC_REASON, node2.reason().map(NodeReason::text).orElse(""));
            for (String other : List.of("node1", "node3", "node4")) {
                assertFalse(
                        cluster.node(other).state().isFail()
                                || cluster.node(other).state().isDrain(),
                        other + " " + cluster.node(other).state().display());
            }
        } finally {
            if (jobId != null) {
                cluster.run(List.of("scancel", jobId));
            }
            cluster.nhcPass("node2");
            cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
            SupervisedSteps.stop(supervised);
        }
    }
}
