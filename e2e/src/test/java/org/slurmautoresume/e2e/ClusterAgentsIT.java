package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;
import org.slurmautoresume.slurm.probe.LivenessProber;

/**
 * The local cluster runs the agents itself, one per node and bound to it, as production runs one
 * per machine ({@code local-cluster.sh up --agents}): each answers liveness probes on its own
 * node's address as that node, marks its own node on an Xid in that node's kernel log, dies with
 * its node ({@code kill-node}) and comes back with it ({@code revive-node}); an {@code up}
 * without the option stops them all.
 */
class ClusterAgentsIT {

    private static final Duration GREETING_TIMEOUT = Duration.ofSeconds(2);

    private static LocalCluster cluster;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
    }

    @Test
    void everyNodeRunsItsOwnAgentWhichMarksItsNodeDiesWithItAndComesBack() throws Exception {
        List<String> nodes = cluster.nodeNames();
        String victim = nodes.get(nodes.size() - 1);
        cluster.withAgents(() -> {
            for (String node : nodes) {
                assertEquals(Optional.of(node), greetedAs(node), node + "'s liveness port");
            }
            Path socket = Path.of(cluster.envValue("AR_AGENT_SOCKET").orElseThrow());
            assertTrue(Files.exists(socket), "cluster.env names no agent socket that exists: " + socket);

            try {
                cluster.gpuFault(victim, 79);
                Node marked = Wait.until(victim + " marked by its own agent", Duration.ofSeconds(30), () -> {
                    Node n = cluster.node(victim);
                    return n.state().isFail() ? Optional.of(n) : Optional.empty();
                });
                String reason = marked.reason().map(NodeReason::text).orElse("");
                assertTrue(reason.startsWith("Action:Reboot Xid 79 GPU PCI:0000:3b:00"), reason);
                for (String other : nodes) {
                    if (!other.equals(victim)) {
                        assertFalse(
                                cluster.node(other).state().isFail(), other + " was marked for " + victim + "'s Xid");
                    }
                }

                cluster.killNode(victim);
                Wait.until(
                        victim + "'s agent to be gone with it",
                        Duration.ofSeconds(30),
                        () -> greetedAs(victim).isEmpty() ? Optional.of(true) : Optional.empty());
                cluster.reviveNode(victim);
                Wait.until(
                        victim + "'s agent to answer again after revive-node",
                        Duration.ofSeconds(30),
                        () -> greetedAs(victim).filter(victim::equals));
            } finally {
                cluster.gpuRepair(victim);
                cluster.run(List.of("scontrol", "update", "nodename=" + victim, "state=resume"));
            }
        });
        for (String node : nodes) {
            assertEquals(
                    Optional.empty(), greetedAs(node), node + "'s agent still answers after an up without --agents");
        }
    }

    /** The node the agent on {@code node}'s liveness port says it is; empty when none answers. */
    private static Optional<String> greetedAs(String node) {
        Node record = cluster.node(node);
        int port = LivenessProber.port(LivenessProber.DEFAULT_PORT, record);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(record.address(), port), (int) GREETING_TIMEOUT.toMillis());
            socket.setSoTimeout((int) GREETING_TIMEOUT.toMillis());
            String line = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
            // "autoresume-agent 1 NODE ok" (LivenessListener)
            String[] words = line == null ? new String[0] : line.split(" ");
            return words.length >= 3 && words[0].equals("autoresume-agent") ? Optional.of(words[2]) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
