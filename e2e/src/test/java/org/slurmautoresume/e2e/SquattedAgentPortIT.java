package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.probe.LivenessProber;

/**
 * On the local cluster, as in containers that let users bind low ports, an agent's liveness port
 * is unprivileged: while node2's agent is down the ordinary test user holds that port with a
 * listener that accepts and never says a word, as a stopped node's kernel would. The user's job
 * on node2 then asks an agent to mark node2: its diagnosis asks node2's slurmd in slurmd's own
 * protocol, which answers, so the healthy node is not marked. Once node2's slurmd is stopped too,
 * the same request marks it: the refusal came from slurmd's answer, not from the squatter.
 */
class SquattedAgentPortIT {

    private static final Duration READ = Duration.ofSeconds(2);

    @Test
    void aUsersSilentListenerOnTheAgentsPortDoesNotMakeAHealthyNodeFrozen() throws Exception {
        LocalCluster cluster = LocalCluster.get();
        SlurmTruth truth = new SlurmTruth(cluster);
        Node node2 = cluster.node("node2");
        int port = LivenessProber.port(LivenessProber.DEFAULT_PORT, node2);
        assertTrue(port > 1023, "node2's liveness port is unprivileged on the local cluster: " + port);
        String jobId = null;
        Process squatter = null;
        LocalAgent agent = null;
        try {
            jobId = cluster.submit("#!/bin/bash\nsleep 300\n",
                    List.of("-N1", "-w", "node2", "--exclusive", "--no-kill", "-J", "squatted-agent-port-it"));
            cluster.waitForJob(jobId, "to run", Duration.ofSeconds(120), job -> job.state() == JobState.RUNNING);
            squatter = squat(cluster, node2.address(), port);
            assertTrue(staysSilent(node2.address(), port), "the squatter accepted and said nothing");
            agent = LocalAgent.start(cluster, cluster.clusterDir().resolve("squatted-it-" + ProcessHandle.current().pid()),
                    "--node", "node1", "--check-port", "0");

            JsonNode refused = agent.callAsTestUser(cluster, LocalAgent.mark(jobId, "node2", "fail"));
            assertFalse(refused.get("ok").asBoolean(), refused.toString());
            JsonNode decision = refused.get("decisions").get(0);
            assertEquals("node2", decision.get("node").asText(), refused.toString());
            assertEquals("refused", decision.get("decision").asText(), refused.toString());
            String state = truth.nodeField("node2", "State");
            for (String mark : List.of("FAIL", "DOWN", "DRAIN")) {
                assertFalse(state.contains(mark), "node2 is " + state);
            }
            assertEquals(JobState.RUNNING.name(), truth.jobField(jobId, "JobState"));

            // The counter-proof: the same squatter, and node2's slurmd stopped as on a frozen node.
            assertTrue(cluster.freezeSlurmd("node2").succeeded());
            JsonNode marked = agent.callAsTestUser(cluster, LocalAgent.mark(jobId, "node2", "fail"));
            assertEquals("marked", marked.get("decisions").get(0).get("decision").asText(), marked.toString());
            assertTrue(truth.nodeField("node2", "State").contains("FAIL"), truth.nodeField("node2", "State"));
        } finally {
            cluster.thawNode("node2");
            if (squatter != null) {
                squatter.getOutputStream().close(); // it exits at the end of its input
                if (!squatter.waitFor(10, TimeUnit.SECONDS)) {
                    squatter.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
            if (jobId != null) {
                cluster.run(List.of("scancel", jobId));
            }
            String state = truth.nodeField("node2", "State");
            if (state.contains("FAIL") || state.contains("DOWN") || state.contains("DRAIN")) {
                cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
            }
            if (agent != null) {
                agent.stop();
            }
        }
    }

    /**
     * The test user's listener on {@code address:port}: accepts every connection and holds it
     * without a word, until its standard input ends (or ten minutes pass). Returns once it listens.
     */
    private static Process squat(LocalCluster cluster, String address, int port) throws IOException {
        String script = String.join("\n",
                "import signal, socket, sys, threading",
                "signal.alarm(600)",
                "server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)",
                // As any squatter would: the port's earlier connections (an agent a test stopped) may
                // still be in TIME_WAIT; a live listener there still refuses the bind.
                "server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)",
                "server.bind((sys.argv[1], int(sys.argv[2])))",
                "server.listen(64)",
                "print('listening', flush=True)",
                "held = []",
                "def hold():",
                "    while True:",
                "        held.append(server.accept()[0])",
                "threading.Thread(target=hold, daemon=True).start()",
                "sys.stdin.read()");
        List<String> argv = new ArrayList<>(cluster.asTestUser(List.of("python3", "-c", script, address,
                String.valueOf(port))));
        Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String first = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
                .readLine();
        assertEquals("listening", first, "the test user could not listen on " + address + ":" + port
                + " (an agent for node2 still runs?)");
        return process;
    }

    /** Whether a connection to {@code address:port} is accepted and then nothing arrives within {@link #READ}. */
    private static boolean staysSilent(String address, int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, port), (int) READ.toMillis());
            socket.setSoTimeout((int) READ.toMillis());
            try {
                socket.getInputStream().read(); // a byte or the end: not silent
                return false;
            } catch (SocketTimeoutException e) {
                return true;
            }
        }
    }
}
