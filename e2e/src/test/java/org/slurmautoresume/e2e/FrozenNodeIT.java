package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;
import org.slurmautoresume.slurm.probe.LivenessProber;
import org.slurmautoresume.slurm.probe.TcpNodeProber;

/**
 * A node that stops answering while it runs. Frozen: node2's slurmd, slurmstepd, tasks and agent
 * are all stopped (SIGSTOP), as on a machine whose kernel still completes TCP handshakes but runs
 * nothing; a connect to its slurmd succeeds. Cut off the network: every packet to or from node2's
 * address is dropped, as by a failed switch port, while its processes run on; a connect to its
 * slurmd times out. Either way Slurm would notice only at SlurmdTimeout (300 s here, as in
 * production). The supervisor asks each node's agent instead: node2's greeted it before and now
 * does not answer, the agent of the batch host confirms that itself, marks node2, and the step
 * runs again on node1 and the job's spare node3, minutes before Slurm would have acted.
 */
class FrozenNodeIT {

    private static final Duration FIRST_START = Duration.ofSeconds(300);
    private static final String PREFIX = "87-frozen-node-it-";

    /** How node2 stops answering, how it is undone, and what a plain connect to its slurmd says meanwhile. */
    enum Fault {
        FROZEN("frozen-node", true),
        CUT_OFF("network-cut", false);

        private final String matrixRow;
        private final boolean connectSucceeds;

        Fault(String matrixRow, boolean connectSucceeds) {
            this.matrixRow = matrixRow;
            this.connectSucceeds = connectSucceeds;
        }

        void inject(LocalCluster cluster) {
            assertTrue((this == FROZEN ? cluster.freezeNode("node2") : cluster.cutNetwork("node2")).succeeded());
        }

        void undo(LocalCluster cluster) {
            if (this == FROZEN) {
                cluster.thawNode("node2");
            } else {
                cluster.restoreNetwork("node2");
            }
        }
    }

    @ParameterizedTest(name = "node2 {0}")
    @EnumSource(Fault.class)
    void aNodeThatStopsAnsweringIsFoundByItsSilentAgentAndTheStepMovesToTheSpare(Fault fault) throws Exception {
        LocalCluster cluster = LocalCluster.get();
        // The batch host's agent, which the supervisor asks to confirm, and node2's own.
        SupervisedSteps supervised = SupervisedSteps.start(cluster, PREFIX, "--node", "node1");
        LocalAgent node2Agent = LocalAgent.start(
                cluster, supervised.plugstack().installDir().resolve("agent-node2"), "--node", "node2");
        String jobId = null;
        try {
            Node node2 = cluster.node("node2");
            LivenessProber asked = new LivenessProber(
                    Duration.ofSeconds(2),
                    LivenessProber.DEFAULT_PORT,
                    true,
                    n -> Optional.of("no agent answers on " + LivenessProber.port(LivenessProber.DEFAULT_PORT, n)));
            Wait.until(
                    "node2's agent to answer liveness probes",
                    Duration.ofSeconds(30),
                    () -> asked.unreachable(node2).isEmpty() ? Optional.of(true) : Optional.empty());
            String id = supervised.stepWithSpare(cluster, FIRST_START);
            jobId = id;
            Instant faultAt = Instant.now();
            fault.inject(cluster);
            // What a plain connect to slurmd says of the node: alive when frozen, timed out when cut off.
            assertEquals(
                    fault.connectSucceeds,
                    new TcpNodeProber(Duration.ofSeconds(1)).unreachable(node2).isEmpty());

            Job done = cluster.waitForJobEnd(id, Duration.ofSeconds(180));
            String output = cluster.jobOutput(id);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("SRUN_EXIT=0"), output);
            assertTrue(output.contains("attempt=2 node=node1 list=node[1,3]"), output);
            assertTrue(output.contains("attempt=2 node=node3 list=node[1,3]"), output);
            Node marked = cluster.node("node2");
            assertTrue(marked.state().isFail(), marked.state().display());
            String reason = marked.reason().map(NodeReason::text).orElse("");
            assertTrue(reason.startsWith("Action:Replace"), reason);
            for (String other : List.of("node1", "node3", "node4")) {
                assertFalse(
                        cluster.node(other).state().isFail(),
                        other + " " + cluster.node(other).state().display());
            }
            Timeline timeline = Timeline.of(cluster, id);
            Timeline.Event detection = timeline.only(Timeline.Kind.DETECTION);
            assertEquals(
                    List.of("slurmd-probe", "node2"),
                    List.of(detection.detail("source"), detection.detail("nodes")),
                    timeline.toString());
            Timeline.Event replacement = timeline.only(Timeline.Kind.REPLACEMENT);
            assertEquals(
                    List.of("in-job-spare", "node[1,3]"),
                    List.of(replacement.detail("path"), replacement.detail("stepNodes")),
                    timeline.toString());
            long detectedMs = Duration.between(faultAt, detection.at()).toMillis();
            long rerunMs = Duration.between(
                            faultAt, timeline.all(Timeline.Kind.LAUNCH).get(1).at())
                    .toMillis();
            // Slurm alone: nothing before SlurmdTimeout (300 s) has passed since node2's last answer.
            assertTrue(rerunMs < 60_000, "the re-run started " + rerunMs + " ms after the fault: " + timeline);
            FaultMatrix.row(fault.matrixRow, faultAt, timeline, done.state().name());
            System.out.printf(
                    "%s: detected %d ms after the fault, re-run started %d ms after it%n",
                    fault.matrixRow, detectedMs, rerunMs);
        } finally {
            fault.undo(cluster);
            if (jobId != null) {
                cluster.run(List.of("scancel", jobId));
            }
            cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
            node2Agent.stop();
            SupervisedSteps.stop(supervised);
        }
    }
}
