package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.parse.NodeParser;
import org.slurmautoresume.slurm.probe.LivenessProber;

class LivenessListenerTest {

    private static InetSocketAddress anyLoopbackPort() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    private static String firstLine(int port, String send) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(5000);
            if (!send.isEmpty()) {
                socket.getOutputStream().write(send.getBytes(StandardCharsets.UTF_8));
            }
            return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
        }
    }

    @Test
    void everyConnectionIsGreetedWithTheNode() throws IOException {
        LivenessListener listener = LivenessListener.start(anyLoopbackPort(), "node2", new NodeVerdict());
        try {
            for (int i = 0; i < 200; i++) {
                assertEquals("autoresume-agent 1 node2 ok", firstLine(listener.port(), ""));
            }
        } finally {
            listener.close();
        }
        // The count is taken after the greeting is written, so the last peer can read its line
        // before it is counted; close() waits for the serving thread, and then the count is whole.
        assertEquals(200, listener.answered());
    }

    @Test
    void whatAPeerSendsIsNeverRead() throws IOException {
        try (LivenessListener listener = LivenessListener.start(anyLoopbackPort(), "node2", new NodeVerdict())) {
            assertEquals(
                    "autoresume-agent 1 node2 ok", firstLine(listener.port(), "mark node[1-64] fail\n".repeat(500)));
        }
    }

    @Test
    void theProberAndTheListenerAgree() throws IOException {
        try (LivenessListener listener = LivenessListener.start(anyLoopbackPort(), "node2", new NodeVerdict())) {
            LivenessProber prober =
                    new LivenessProber(Duration.ofSeconds(2), listener.port(), true, node -> Optional.of("not asked"));
            assertEquals(
                    Optional.empty(),
                    prober.unreachable(
                            new NodeParser().parse("NodeName=node2 NodeAddr=127.0.0.1 Port=6818 State=IDLE")));
        }
    }

    @Test
    void afterAMarkTheGreetingSaysUnhealthyForAMinute() throws IOException {
        long[] now = {0};
        NodeVerdict verdict = new NodeVerdict(() -> now[0]);
        try (LivenessListener listener = LivenessListener.start(anyLoopbackPort(), "node2", verdict)) {
            assertEquals("autoresume-agent 1 node2 ok", firstLine(listener.port(), ""));
            verdict.markedUnhealthy();
            assertEquals("autoresume-agent 1 node2 unhealthy", firstLine(listener.port(), ""));
            now[0] += NodeVerdict.UNHEALTHY_FOR.toNanos() - 1;
            assertEquals("autoresume-agent 1 node2 unhealthy", firstLine(listener.port(), ""));
            now[0] += 2;
            assertEquals("autoresume-agent 1 node2 ok", firstLine(listener.port(), ""), "it lapses by itself");
        }
    }

    @Test
    void aFreshCheckGreetingWaitsForTheRoundAndSaysWhatItFound() throws IOException {
        NodeVerdict verdict = new NodeVerdict();
        java.util.concurrent.atomic.AtomicInteger rounds = new java.util.concurrent.atomic.AtomicInteger();
        java.util.function.Supplier<java.util.concurrent.CompletableFuture<Void>> round = () -> {
            rounds.incrementAndGet();
            return java.util.concurrent.CompletableFuture.runAsync(() -> {
                sleep(300);
                verdict.markedUnhealthy(); // the checks found a fault and marked the node
            });
        };
        try (LivenessListener listener = LivenessListener.startFresh(anyLoopbackPort(), "node2", verdict, round)) {
            assertEquals(
                    "autoresume-agent 1 node2 unhealthy",
                    firstLine(listener.port(), ""),
                    "the greeting came after the round, not with the verdict held before it");
            assertEquals(1, rounds.get());
        }
    }

    @Test
    void aRoundPastItsBoundIsAnsweredWithTheVerdictHeld() throws IOException {
        java.util.concurrent.CompletableFuture<Void> never = new java.util.concurrent.CompletableFuture<>();
        try (LivenessListener listener =
                LivenessListener.startFresh(anyLoopbackPort(), "node2", new NodeVerdict(), () -> never)) {
            long asked = System.nanoTime();
            assertEquals("autoresume-agent 1 node2 ok", firstLine(listener.port(), "check node1 please\n"));
            long tookMs = (System.nanoTime() - asked) / 1_000_000;
            assertTrue(tookMs >= LivenessListener.FRESH_WITHIN.toMillis() - 50, tookMs + " ms");
            assertFalse(never.isDone(), "the shared round itself is left to finish");
        }
    }

    @Test
    void askersBeyondThoseKeptWaitingAreClosedUnanswered() throws Exception {
        java.util.concurrent.CompletableFuture<Void> round = new java.util.concurrent.CompletableFuture<>();
        int extra = 20;
        List<Socket> peers = new java.util.ArrayList<>();
        try (LivenessListener listener =
                LivenessListener.startFresh(anyLoopbackPort(), "node2", new NodeVerdict(), () -> round)) {
            for (int i = 0; i < LivenessListener.FRESH_WAITING + extra; i++) {
                Socket peer = new Socket(InetAddress.getLoopbackAddress(), listener.port());
                peer.setSoTimeout(5000);
                peers.add(peer);
            }
            int unanswered = 0;
            // The first ones wait for the round; those beyond the bound are closed at once.
            for (Socket peer : peers.subList(LivenessListener.FRESH_WAITING, peers.size())) {
                if (new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.US_ASCII))
                                .readLine()
                        == null) {
                    unanswered++;
                }
            }
            assertEquals(extra, unanswered);
            round.complete(null);
            for (Socket peer : peers.subList(0, LivenessListener.FRESH_WAITING)) {
                assertEquals(
                        "autoresume-agent 1 node2 ok",
                        new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.US_ASCII))
                                .readLine());
            }
        } finally {
            for (Socket peer : peers) {
                peer.close();
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aClosedListenerTakesNoMoreConnections() throws IOException {
        LivenessListener listener = LivenessListener.start(anyLoopbackPort(), "node2", new NodeVerdict());
        int port = listener.port();
        listener.close();
        assertThrows(IOException.class, () -> firstLine(port, ""));
    }

    @Test
    void onlyANodeNameGoesIntoTheGreeting() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> LivenessListener.start(
                        anyLoopbackPort(), "node2 ok\nautoresume-agent 1 node3", new NodeVerdict()));
        assertTrue(e.getMessage().contains("not a node name"), e.getMessage());
    }

    /** A peer of the liveness port from {@code source} (a loopback address), its greeting read. */
    private static Socket greetedFrom(String source, int port) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
        socket.setSoTimeout(5000);
        assertEquals("autoresume-agent 1 node2 ok", line(socket.getInputStream()));
        return socket;
    }

    /** One line read a byte at a time (nothing beyond it consumed); null at the end. */
    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                return line.length() == 0 ? null : line.toString();
            }
            line.append((char) b);
        }
        return line.toString();
    }

    /** Asks again on a kept connection: the next greeting, or null where the agent closed it. */
    private static String askAgain(Socket socket) throws IOException {
        try {
            socket.getOutputStream().write(LivenessProber.ASK_AGAIN);
            return line(socket.getInputStream());
        } catch (java.net.SocketException e) {
            return null; // reset: the agent had closed it
        }
    }

    @Test
    void aKeptConnectionIsGreetedAgainAtEachQuestion() throws IOException {
        NodeVerdict verdict = new NodeVerdict();
        LivenessListener listener = LivenessListener.start(anyLoopbackPort(), "node2", verdict);
        try (Socket peer = greetedFrom("127.0.0.1", listener.port())) {
            for (int i = 0; i < 50; i++) {
                assertEquals("autoresume-agent 1 node2 ok", askAgain(peer));
            }
            verdict.markedUnhealthy();
            assertEquals("autoresume-agent 1 node2 unhealthy", askAgain(peer), "each answer says the verdict now");
        } finally {
            listener.close();
        }
        // Counted after each write: whole once close() has waited for the serving thread.
        assertEquals(52, listener.answered());
    }

    @Test
    void anythingButTheOneQuestionByteEndsTheConnection() throws IOException {
        try (LivenessListener listener = LivenessListener.start(anyLoopbackPort(), "node2", new NodeVerdict())) {
            for (String sent : List.of("x", "??", "mark node2 fail\n", "?".repeat(4096))) {
                try (Socket peer = greetedFrom("127.0.0.1", listener.port())) {
                    peer.getOutputStream().write(sent.getBytes(StandardCharsets.US_ASCII));
                    assertEquals(
                            null, line(peer.getInputStream()), "closed unanswered after " + sent.length() + " bytes");
                }
            }
            try (Socket peer = greetedFrom("127.0.0.1", listener.port())) {
                assertEquals("autoresume-agent 1 node2 ok", askAgain(peer), "the port still serves");
            }
        }
    }

    @Test
    void keptConnectionsAreBoundedPerPeerAndInAll() throws IOException {
        List<Socket> peers = new ArrayList<>();
        try (LivenessListener listener = LivenessListener.start(anyLoopbackPort(), "node2", new NodeVerdict())) {
            int sources = LivenessListener.HELD / LivenessListener.HELD_PER_PEER;
            for (int source = 0; source < sources; source++) {
                for (int i = 0; i < LivenessListener.HELD_PER_PEER; i++) {
                    peers.add(greetedFrom("127.0.0." + (source + 1), listener.port()));
                }
                // One more from the same peer is greeted, and closed rather than kept.
                try (Socket beyond = greetedFrom("127.0.0." + (source + 1), listener.port())) {
                    assertEquals(null, askAgain(beyond), "beyond " + LivenessListener.HELD_PER_PEER + " per peer");
                }
            }
            // Every peer is within its share, and the port keeps no more in all.
            try (Socket beyond = greetedFrom("127.0.0." + (sources + 1), listener.port())) {
                assertEquals(null, askAgain(beyond), "beyond " + LivenessListener.HELD + " in all");
            }
            for (Socket peer : peers) {
                assertEquals("autoresume-agent 1 node2 ok", askAgain(peer), "the kept ones are still answered");
            }
            // A kept one that ends frees its place.
            peers.remove(0).close();
            try (Socket again = awaitKept(listener.port())) {
                assertEquals("autoresume-agent 1 node2 ok", askAgain(again));
            }
        } finally {
            for (Socket peer : peers) {
                peer.close();
            }
        }
    }

    /** A connection from 127.0.0.1 that the port keeps, once a place is free (the agent learns of a closed peer at once, but not before this asks). */
    private static Socket awaitKept(int port) throws IOException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (true) {
            Socket socket = greetedFrom("127.0.0.1", port);
            String answer = askAgain(socket);
            if (answer != null) {
                assertEquals("autoresume-agent 1 node2 ok", answer);
                return socket;
            }
            socket.close();
            assertTrue(System.nanoTime() < deadline, "no place freed within 5 s");
        }
    }

    @Test
    void aKeptConnectionThatAsksNothingIsDropped() throws IOException {
        Duration idle = Duration.ofMillis(300);
        try (LivenessListener listener = LivenessListener.start(anyLoopbackPort(), "node2", new NodeVerdict(), idle);
                Socket peer = greetedFrom("127.0.0.1", listener.port())) {
            long greeted = System.nanoTime();
            assertEquals("autoresume-agent 1 node2 ok", askAgain(peer));
            peer.setSoTimeout(5000);
            assertEquals(-1, peer.getInputStream().read(), "closed by the agent, not timed out here");
            long tookMs = (System.nanoTime() - greeted) / 1_000_000;
            assertTrue(tookMs >= idle.toMillis(), tookMs + " ms");
        }
    }

    @Test
    void closingTheListenerEndsItsKeptConnections() throws IOException {
        LivenessListener listener = LivenessListener.start(anyLoopbackPort(), "node2", new NodeVerdict());
        try (Socket peer = greetedFrom("127.0.0.1", listener.port())) {
            assertEquals("autoresume-agent 1 node2 ok", askAgain(peer));
            listener.close();
            assertEquals(-1, peer.getInputStream().read());
        } finally {
            listener.close();
        }
    }

    @Test
    void theProberKeepsOneConnectionToTheListener() throws IOException {
        LivenessListener listener = LivenessListener.start(anyLoopbackPort(), "node2", new NodeVerdict());
        try (LivenessProber prober =
                new LivenessProber(Duration.ofSeconds(2), listener.port(), true, node -> Optional.of("not asked"))) {
            var node = new NodeParser().parse("NodeName=node2 NodeAddr=127.0.0.1 Port=6818 State=IDLE");
            for (int i = 0; i < 20; i++) {
                assertEquals(Optional.empty(), prober.unreachable(node));
                assertTrue(prober.speaksForItsNode(node));
            }
        } finally {
            listener.close();
        }
        assertEquals(20, listener.answered());
        // Each new connection is counted before its greeting: only the first was one, the rest were questions.
        assertEquals(1, listener.accepted());
    }
}
