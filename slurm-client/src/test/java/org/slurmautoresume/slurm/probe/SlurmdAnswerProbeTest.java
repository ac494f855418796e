package org.slurmautoresume.slurm.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.NodeParser;

/** Against loopback stand-ins: a slurmd that closes on the length it refuses, a stopped one, none. */
class SlurmdAnswerProbeTest {

    private static final SlurmdAnswerProbe PROBE = new SlurmdAnswerProbe(Duration.ofMillis(300));

    @Test
    void aRunningSlurmdClosesOnTheLengthItRefuses() throws IOException {
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(20000, true)) {
            assertEquals(SlurmdAnswerProbe.Answer.ANSWERS, PROBE.ask(slurmd.node()));
            assertEquals(1, slurmd.lengthsRead(), "the probe sent the length prefix");
        }
    }

    @Test
    void aStoppedSlurmdWhoseKernelStillAcceptsIsSilent() throws IOException {
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(20000, false)) {
            long start = System.nanoTime();
            assertEquals(SlurmdAnswerProbe.Answer.SILENT, PROBE.ask(slurmd.node()));
            assertEquals(true, System.nanoTime() - start < Duration.ofSeconds(2).toNanos(), "bounded by the timeout");
        }
    }

    @Test
    void nothingOnSlurmdsPortIsNotAccepted() throws IOException {
        Node node;
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(20000, true)) {
            node = slurmd.node();
        }
        assertEquals(SlurmdAnswerProbe.Answer.NOT_ACCEPTED, PROBE.ask(node));
    }

    @Test
    void anUnansweredHandshakeCostsOnlyItsWindow() throws IOException {
        List<Socket> queued = new ArrayList<>();
        try (ServerSocket jammed = new ServerSocket()) {
            jammed.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
            for (int i = 0; i < 4; i++) { // never accepted: once the queue is full, handshakes go unanswered
                Socket filler = new Socket();
                try {
                    filler.connect(jammed.getLocalSocketAddress(), 200);
                } catch (IOException e) {
                    // full already
                }
                queued.add(filler);
            }
            Node node = new NodeParser()
                    .parse("NodeName=node2 NodeAddr=127.0.0.1 Port=" + jammed.getLocalPort() + " State=IDLE");
            long start = System.nanoTime();
            assertEquals(
                    SlurmdAnswerProbe.Answer.NOT_ACCEPTED,
                    new SlurmdAnswerProbe(Duration.ofSeconds(5)).ask(node, Duration.ofMillis(200)));
            long took = Duration.ofNanos(System.nanoTime() - start).toMillis();
            assertTrue(took < 1500, "the handshake was given 200 ms of the 5 s: took " + took + " ms");
        } finally {
            for (Socket filler : queued) {
                filler.close();
            }
        }
    }

    @Test
    void aTimeoutMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new SlurmdAnswerProbe(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> PROBE.ask(null, Duration.ZERO));
    }
}
