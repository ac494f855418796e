package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;
import org.slurmautoresume.slurm.probe.LivenessProber;
import org.slurmautoresume.slurm.probe.TcpNodeProber;

/**
 * A node that hangs: node2's slurmd, slurmstepd, tasks and agent are all stopped (SIGSTOP), as
 * on a machine whose kernel still completes TCP handshakes but runs nothing. A connect to its
 * slurmd succeeds, and Slurm would notice only at SlurmdTimeout (300 s here, as in production).
 * The supervisor asks each node's agent instead: node2's greeted it before and now stays silent,
 * the agent of the batch host confirms the silence itself, marks node2, and the step runs again
 * on node1 and the job's spare node3, minutes before Slurm would have acted.
 */
class FrozenNodeIT {

    private static final Duration FIRST_START = Duration.ofSeconds(300);
    private static final String PREFIX = "87-frozen-node-it-";

    @Test
    void aFrozenNodeIsFoundByItsSilentAgentAndTheStepMovesToTheSpare() throws Exception {
        LocalCluster cluster = LocalCluster.get();
        // The batch host's agent, which the supervisor asks to confirm, and node2's own.
        SupervisedSteps supervised = SupervisedSteps.start(cluster, PREFIX, "--node", "node1");
        LocalAgent node2Agent = LocalAgent.start(cluster, supervised.plugstack().installDir().resolve("agent-node2"),
                "--node", "node2");
        String jobId = null;
        try {
            Node node2 = cluster.node("node2");
            LivenessProber asked = new LivenessProber(Duration.ofSeconds(2), LivenessProber.DEFAULT_PORT, true,
                    n -> Optional.of("no agent answers on " + LivenessProber.port(LivenessProber.DEFAULT_PORT, n)));
            Wait.until("node2's agent to answer liveness probes", Duration.ofSeconds(30), () ->
                    asked.unreachable(node2).isEmpty() ? Optional.of(true) : Optional.empty());
            String id = supervised.stepWithSpare(cluster, FIRST_START);
            jobId = id;
            Instant frozen = Instant.now();
            cluster.freezeNode("node2");
            // What a plain connect to slurmd says of the frozen node: alive.
            assertEquals(Optional.empty(), new TcpNodeProber(Duration.ofSeconds(1)).unreachable(node2));

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
                assertFalse(cluster.node(other).state().isFail(), other + " " + cluster.node(other).state().display());
            }
            Timeline timeline = Timeline.of(cluster, id);
            Timeline.Event detection = timeline.only(Timeline.Kind.DETECTION);
            assertEquals(List.of("slurmd-probe", "node2"), List.of(detection.detail("source"), detection.detail("nodes")),
                    timeline.toString());
            Timeline.Event replacement = timeline.only(Timeline.Kind.REPLACEMENT);
            assertEquals(List.of("in-job-spare", "node[1,3]"), List.of(replacement.detail("path"),
                    replacement.detail("stepNodes")), timeline.toString());
            long detectedMs = Duration.between(frozen, detection.at()).toMillis();
            long rerunMs = Duration.between(frozen, timeline.all(Timeline.Kind.LAUNCH).get(1).at()).toMillis();
            // Slurm alone: nothing before SlurmdTimeout (300 s) has passed since node2's last answer.
            assertTrue(rerunMs < 60_000, "the re-run started " + rerunMs + " ms after the freeze: " + timeline);
            FaultMatrix.row("frozen-node", frozen, timeline, done.state().name());
            System.out.printf("frozen node: detected %d ms after the freeze, re-run started %d ms after it%n",
                    detectedMs, rerunMs);
        } finally {
            cluster.thawNode("node2");
            if (jobId != null) {
                cluster.run(List.of("scancel", jobId));
            }
            cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
            node2Agent.stop();
            SupervisedSteps.stop(supervised);
        }
    }
}
