package org.slurmautoresume.slurm.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.NodeParser;

/** Against real loopback sockets: a listening slurmd port, and the same port once nothing listens. */
class TcpNodeProberTest {

    private static Node node(int port) {
        return new NodeParser().parse("NodeName=node2 NodeAddr=127.0.0.1 Port=" + port + " State=IDLE");
    }

    @Test
    void aRefusedConnectionIsToldApartFromAnAnswer() throws IOException {
        TcpNodeProber prober = new TcpNodeProber(Duration.ofMillis(500));
        int port;
        try (ServerSocket slurmd = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = slurmd.getLocalPort();
            assertEquals(Optional.empty(), prober.unreachable(node(port)));
            assertFalse(prober.refused(node(port)));
        }
        Optional<String> miss = prober.unreachable(node(port));
        assertTrue(miss.orElseThrow().contains("ConnectException"), miss.toString());
        assertTrue(prober.refused(node(port)));
        assertFalse(prober.gone(node(port)), "one refusing daemon is what a slurmd restart looks like too");
    }
}
