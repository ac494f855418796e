package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
    void everyConnectionIsGreetedWithTheNodeAndClosed() throws IOException {
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
}
