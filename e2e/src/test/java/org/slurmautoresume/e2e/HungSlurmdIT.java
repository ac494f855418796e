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
import org.slurmautoresume.slurm.probe.TcpNodeProber;

/**
 * A hung slurmd on a live node: node2's slurmd alone is stopped (SIGSTOP). Its port still
 * accepts connections, its running step's tasks and its agent go on, and Slurm would notice only
 * at SlurmdTimeout (300 s here, as in production), then set node2 DOWN and kill the job. node2's
 * own agent asks its slurmd for its status every second; two asks without an answer mark node2
 * fail with Action:Reboot, the supervisor sees the mark, and the step runs again on node1 and
 * the job's spare node3.
 */
class HungSlurmdIT {

    private static final Duration FIRST_START = Duration.ofSeconds(300);
    private static final String PREFIX = "88-hung-slurmd-it-";

    @Test
    void aHungSlurmdIsFoundByItsNodesAgentAndTheStepMovesToTheSpare() throws Exception {
        LocalCluster cluster = LocalCluster.get();
        SupervisedSteps supervised = SupervisedSteps.start(
                cluster, PREFIX, "--node", "node1", "--slurmd-check-every", "1", "--metrics-listen", "127.0.0.1:0");
        LocalAgent node2Agent = LocalAgent.start(
                cluster,
                supervised.plugstack().installDir().resolve("agent-node2"),
                "--node",
                "node2",
                "--slurmd-check-every",
                "1",
                "--metrics-listen",
                "127.0.0.1:0");
        String jobId = null;
        try {
            // The check counts only a slurmd that answered it once.
            Wait.until(
                    "node2's agent to hear from its slurmd",
                    Duration.ofSeconds(30),
                    () -> LocalAgent.sample(
                                            node2Agent.scrapeMetrics(),
                                            "autoresume_agent_slurmd_checks_total{result=\"passed\"}")
                                    >= 1
                            ? Optional.of(true)
                            : Optional.empty());
            String id = supervised.stepWithSpare(cluster, FIRST_START);
            jobId = id;
            Instant frozen = Instant.now();
            assertEquals(0, cluster.freezeSlurmd("node2").exitCode());
            // What a plain connect to slurmd says of it: alive.
            assertEquals(Optional.empty(), new TcpNodeProber(Duration.ofSeconds(1)).unreachable(cluster.node("node2")));

            Job done = cluster.waitForJobEnd(id, Duration.ofSeconds(240));
            String output = cluster.jobOutput(id);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("attempt=2 node=node1 list=node[1,3]"), output);
            assertTrue(output.contains("attempt=2 node=node3 list=node[1,3]"), output);
            Node marked = cluster.node("node2");
            assertTrue(marked.state().isFail(), marked.state().display());
            String reason = marked.reason().map(NodeReason::text).orElse("");
            assertTrue(reason.startsWith("Action:Reboot slurmd check"), reason);
            for (String other : List.of("node1", "node3", "node4")) {
                assertFalse(
                        cluster.node(other).state().isFail(),
                        other + " " + cluster.node(other).state().display());
            }
            // node1's agent asked its own slurmd all along and never found it silent.
            assertEquals(
                    0.0,
                    LocalAgent.sample(
                            supervised.agent().scrapeMetrics(),
                            "autoresume_agent_slurmd_checks_total{result=\"failed\"}"));
            Timeline timeline = Timeline.of(cluster, id);
            Timeline.Event detection = timeline.only(Timeline.Kind.DETECTION);
            assertEquals("node2", detection.detail("nodes"), timeline.toString());
            long detectedMs = Duration.between(frozen, detection.at()).toMillis();
            long rerunMs = Duration.between(
                            frozen, timeline.all(Timeline.Kind.LAUNCH).get(1).at())
                    .toMillis();
            // Slurm alone: nothing before SlurmdTimeout (300 s).
            assertTrue(rerunMs < 120_000, "the re-run started " + rerunMs + " ms after the freeze: " + timeline);
            FaultMatrix.row("hung-slurmd", frozen, timeline, done.state().name());
            System.out.printf(
                    "hung slurmd: detected %d ms after the freeze (%s), re-run started %d ms after it%n",
                    detectedMs, detection.detail("source"), rerunMs);
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
