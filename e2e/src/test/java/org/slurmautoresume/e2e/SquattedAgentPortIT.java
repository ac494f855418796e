package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.probe.LivenessProber;

/**
 * On the local cluster, as in containers that let users bind low ports, an agent's liveness port
 * is unprivileged: once node2's agent is down, the ordinary test user holds that port with a
 * listener of its own ({@link PortSquatter}) that forges the agent's greeting (saying node2 is
 * unhealthy), accepts and says nothing as a stopped node would, or leaves handshakes unanswered as
 * a node cut off would. None of that gets the healthy node2 marked, nor a supervised step that
 * runs on it ended: the probes ask node2's slurmd in its own protocol, and slurmd answers. Once
 * node2's slurmd is stopped too, the same request marks it: the refusals came from slurmd's
 * answer, not from the squatter.
 */
class SquattedAgentPortIT {

    private static final Duration FIRST_START = Duration.ofSeconds(300);
    private static final String PREFIX = "88-squatted-agent-port-it-";
    /** The in-step watch hands a node on after this many missed probes in a row (StepWatch). */
    private static final int PROBE_MISSES = 3;
    /**
     * One of the two lines slurmd 22.05 logs for each length prefix it refuses (the other names the
     * peer's port): one per probe in its protocol.
     */
    private static final String REFUSED_LENGTH = "service_connection: slurm_receive_msg: Insane message length";

    private static final String FORGED = LivenessProber.GREETING + "node2 unhealthy";

    @Test
    void aUsersListenerOnTheDownAgentsPortGetsNoHealthyNodeMarked() throws Exception {
        LocalCluster cluster = LocalCluster.get();
        SlurmTruth truth = new SlurmTruth(cluster);
        Node node2 = cluster.node("node2");
        int port = LivenessProber.port(LivenessProber.DEFAULT_PORT, node2);
        assertTrue(port > 1023, "node2's liveness port is unprivileged on the local cluster: " + port);
        Path base = cluster.clusterDir()
                .resolve("squatted-it-" + ProcessHandle.current().pid());
        String jobId = null;
        PortSquatter squatter = null;
        LocalAgent agent = null;
        try {
            jobId = cluster.submit(
                    "#!/bin/bash\nsleep 300\n",
                    List.of("-N1", "-w", "node2", "--exclusive", "--no-kill", "-J", "squatted-agent-port-it"));
            cluster.waitForJob(jobId, "to run", Duration.ofSeconds(120), job -> job.state() == JobState.RUNNING);
            // node2's agent, as the node runs it, goes down; its port is then anyone's.
            LocalAgent.start(cluster, base.resolve("node2"), "--node", "node2").stop();
            squatter = PortSquatter.start(cluster, node2.address(), port, PortSquatter.Mode.SILENT, FORGED);
            agent = LocalAgent.start(cluster, base.resolve("node1"), "--node", "node1", "--check-port", "0");

            long refusedBefore = slurmdRefusals(cluster, "node2");
            for (PortSquatter.Mode mode : PortSquatter.Mode.values()) {
                squatter.to(mode);
                JsonNode answer = agent.callAsTestUser(cluster, LocalAgent.mark(jobId, "node2", "fail"));
                assertFalse(answer.get("ok").asBoolean(), mode + ": " + answer);
                JsonNode decision = answer.get("decisions").get(0);
                assertEquals("node2", decision.get("node").asText(), answer.toString());
                assertEquals("refused", decision.get("decision").asText(), mode + ": " + answer);
                assertInService(truth, "node2");
                assertEquals(JobState.RUNNING.name(), truth.jobField(jobId, "JobState"));
            }
            // Only the silent port made the agent ask slurmd in its protocol: one refused length.
            assertEquals(refusedBefore + 1, slurmdRefusals(cluster, "node2"), "slurmd's log lines per silent probe");

            // The counter-proof: the same squatter, silent, and node2's slurmd stopped as on a frozen node.
            squatter.to(PortSquatter.Mode.SILENT);
            assertTrue(cluster.freezeSlurmd("node2").succeeded());
            JsonNode marked = agent.callAsTestUser(cluster, LocalAgent.mark(jobId, "node2", "fail"));
            assertEquals(
                    "marked", marked.get("decisions").get(0).get("decision").asText(), marked.toString());
            assertTrue(truth.nodeField("node2", "State").contains("FAIL"), truth.nodeField("node2", "State"));
        } finally {
            cluster.thawNode("node2");
            if (squatter != null) {
                squatter.close();
            }
            if (jobId != null) {
                cluster.run(List.of("scancel", jobId));
            }
            resumeIfOut(cluster, truth, "node2");
            if (agent != null) {
                agent.stop();
            }
        }
    }

    @Test
    void aSupervisedStepKeepsRunningAndWatchedWhileAUserHoldsTheDownAgentsPort() throws Exception {
        LocalCluster cluster = LocalCluster.get();
        SlurmTruth truth = new SlurmTruth(cluster);
        SupervisedSteps supervised = SupervisedSteps.start(cluster, PREFIX, "--node", "node1");
        LocalAgent node2Agent = LocalAgent.start(
                cluster, supervised.plugstack().installDir().resolve("agent-node2"), "--node", "node2");
        String jobId = null;
        PortSquatter squatter = null;
        try {
            Node node2 = cluster.node("node2");
            LivenessProber asked = new LivenessProber(
                    Duration.ofSeconds(2), LivenessProber.DEFAULT_PORT, true, n -> Optional.of("no agent answers"));
            Wait.until(
                    "node2's agent to answer liveness probes",
                    Duration.ofSeconds(30),
                    () -> asked.unreachable(node2).isEmpty() ? Optional.of(true) : Optional.empty());
            String id = supervised.stepWithSpare(cluster, FIRST_START);
            jobId = id;
            Timeline.awaitWatch(cluster, id, Duration.ofSeconds(60));
            node2Agent.stop();
            squatter = PortSquatter.start(
                    cluster,
                    node2.address(),
                    LivenessProber.port(LivenessProber.DEFAULT_PORT, node2),
                    PortSquatter.Mode.GREET,
                    FORGED);

            // A forged "unhealthy" has the supervisor read Slurm's record, which says node2 is in service.
            long beforeGreeted = slurmdRefusals(cluster, "node2");
            awaitServed(squatter, PROBE_MISSES + 1);
            assertEquals(beforeGreeted, slurmdRefusals(cluster, "node2"), "a greeted probe costs slurmd nothing");
            // Silent: a probe a round, each one held; a watch that counted them as misses would stop after three.
            squatter.to(PortSquatter.Mode.SILENT);
            awaitServed(squatter, squatter.served() + PROBE_MISSES + 1);
            // Jammed: no handshake completes; each round asks slurmd, and the rounds go on past three.
            squatter.to(PortSquatter.Mode.JAM);
            long refused = slurmdRefusals(cluster, "node2");
            Wait.until(
                    "the supervisor to ask node2's slurmd " + (PROBE_MISSES + 1) + " times more",
                    Duration.ofSeconds(60),
                    () -> slurmdRefusals(cluster, "node2") >= refused + PROBE_MISSES + 1
                            ? Optional.of(true)
                            : Optional.empty());

            Timeline timeline = Timeline.of(cluster, id);
            assertEquals(List.of(), timeline.all(Timeline.Kind.DETECTION), timeline.toString());
            assertEquals(1, timeline.all(Timeline.Kind.LAUNCH).size(), timeline.toString());
            assertEquals(JobState.RUNNING.name(), truth.jobField(id, "JobState"));
            assertInService(truth, "node2");
            // The agent the supervisor would ask agrees: asked by the job, it marks nothing.
            JsonNode answer = supervised.agent().callAsTestUser(cluster, LocalAgent.mark(id, "node2", "fail"));
            assertEquals(
                    "refused", answer.get("decisions").get(0).get("decision").asText(), answer.toString());
            assertInService(truth, "node2");
        } finally {
            if (squatter != null) {
                squatter.close();
            }
            if (jobId != null) {
                cluster.run(List.of("scancel", jobId));
            }
            resumeIfOut(cluster, truth, "node2");
            if (node2Agent.isAlive()) {
                node2Agent.stop();
            }
            SupervisedSteps.stop(supervised);
        }
    }

    private static void awaitServed(PortSquatter squatter, int count) {
        Wait.until(
                "the squatter to have been probed " + count + " times",
                Duration.ofSeconds(60),
                () -> squatter.served() >= count ? Optional.of(true) : Optional.empty());
    }

    private static void assertInService(SlurmTruth truth, String node) {
        String state = truth.nodeField(node, "State");
        for (String out : List.of("FAIL", "DOWN", "DRAIN")) {
            assertFalse(state.contains(out), node + " is " + state);
        }
    }

    /** A node the test took out (the counter-proof) goes back; one in service is left alone. */
    private static void resumeIfOut(LocalCluster cluster, SlurmTruth truth, String node) {
        String state = truth.nodeField(node, "State");
        if (state.contains("FAIL") || state.contains("DOWN") || state.contains("DRAIN")) {
            cluster.run(List.of("scontrol", "update", "nodename=" + node, "state=resume"));
        }
    }

    /** How many length prefixes the node's slurmd has refused, by its own log. */
    private static long slurmdRefusals(LocalCluster cluster, String node) {
        try (var lines = Files.lines(cluster.clusterDir().resolve("log").resolve("slurmd-" + node + ".log"))) {
            return lines.filter(line -> line.contains(REFUSED_LENGTH)).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
