package org.slurmautoresume.supervisor.step.diagnosis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.NodeParser;
import org.slurmautoresume.slurm.probe.LivenessProber;
import org.slurmautoresume.supervisor.step.FakeSlurm;

/** Against real loopback agents' greetings and the fake Slurm's node records. */
class NodeVerdictsTest {

    private static final int BASE = 818;
    private final List<ServerSocket> agents = new ArrayList<>();
    private final FakeSlurm slurm = new FakeSlurm(List.of("node1", "node2"), List.of("node1", "node2"));

    @AfterEach
    void close() throws IOException {
        for (ServerSocket agent : agents) {
            agent.close();
        }
    }

    /** A node whose agent greets with {@code word} on a free loopback port, its slurmd port set to match. */
    private Node agentSaying(String name, String word) throws IOException {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        agents.add(server);
        Thread thread = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket peer = server.accept();
                        OutputStream out = peer.getOutputStream()) {
                    out.write((LivenessProber.GREETING + name + " " + word + "\n").getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    return;
                }
            }
        });
        thread.setDaemon(true);
        thread.start();
        int slurmdPort = server.getLocalPort() - BASE + 6818;
        return new NodeParser()
                .parse("NodeName=" + name + " NodeAddr=127.0.0.1 Port=" + slurmdPort + " State=ALLOCATED");
    }

    private static ServerSocket freePortAbove(int port) throws IOException {
        for (int candidate = port + 1; candidate < Math.min(port + 1000, 65536); candidate++) {
            try {
                return new ServerSocket(candidate, 50, InetAddress.getLoopbackAddress());
            } catch (IOException taken) {
                // the next one
            }
        }
        throw new IOException("no free loopback port above " + port);
    }

    private static LivenessProber prober() {
        return new LivenessProber(Duration.ofSeconds(1), BASE, false, node -> Optional.empty());
    }

    @Test
    void aNodeItsAgentMarkedTurnsTheFailureIntoANodeFault() throws Exception {
        List<Node> nodes = List.of(agentSaying("node1", "ok"), agentSaying("node2", "unhealthy"));
        slurm.nodeState("node2", "ALLOCATED+DOWN");

        List<Node> out = NodeVerdicts.unhealthy(prober(), nodes, slurm.client());

        assertEquals(List.of("node2"), out.stream().map(Node::name).toList());
    }

    @Test
    void aFaultOnlyAFreshCheckFindsTurnsTheFailureIntoANodeFault() throws Exception {
        Node node2 = agentSaying("node2", "ok"); // the liveness port: the verdict held before the round
        int offset = node2.port().orElseThrow() - 6818;
        // The check port above the liveness one, so that its base (port minus the node's offset) is a port too.
        ServerSocket check = freePortAbove(node2.port().orElseThrow() - 6818 + BASE);
        agents.add(check);
        List<Long> askedAt = new ArrayList<>();
        Thread agent = new Thread(() -> {
            try (Socket peer = check.accept();
                    OutputStream out = peer.getOutputStream()) {
                askedAt.add(System.nanoTime());
                Thread.sleep(500); // the round: its checks find the fault, confirm it and mark the node
                slurm.nodeState("node2", "ALLOCATED+DOWN");
                out.write((LivenessProber.GREETING + "node2 unhealthy\n").getBytes(StandardCharsets.US_ASCII));
            } catch (IOException | InterruptedException e) {
                // the test fails on its own assertions
            }
        });
        agent.setDaemon(true);
        agent.start();
        LivenessProber prober = new LivenessProber(
                Duration.ofSeconds(1), BASE, check.getLocalPort() - offset, false, node -> Optional.empty());

        long started = System.nanoTime();
        List<Node> out = NodeVerdicts.unhealthy(prober, List.of(node2), slurm.client());

        assertEquals(List.of("node2"), out.stream().map(Node::name).toList());
        assertEquals(1, askedAt.size(), "the fresh-check port was asked");
        assertTrue(Duration.ofNanos(System.nanoTime() - started).compareTo(NodeVerdicts.WITHIN_FRESH) < 0);
    }

    @Test
    void theAgentsWordAloneIsNoEvidence() throws Exception {
        List<Node> nodes = List.of(agentSaying("node2", "unhealthy"));

        assertEquals(
                List.of(),
                NodeVerdicts.unhealthy(prober(), nodes, slurm.client()),
                "Slurm has node2 in service: no mark, no node fault");
    }

    @Test
    void withoutAgentsNothingIsAsked() throws Exception {
        Node noAgent = new NodeParser().parse("NodeName=node1 NodeAddr=127.0.0.1 Port=6819 State=ALLOCATED");

        assertEquals(List.of(), NodeVerdicts.unhealthy(prober(), List.of(noAgent), slurm.client()));
        assertEquals(List.of(), NodeVerdicts.unhealthy(node -> Optional.empty(), List.of(noAgent), slurm.client()));
    }
}
