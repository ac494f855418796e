package org.slurmautoresume.slurm.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.NodeParser;

/** Against real loopback sockets: a greeting agent, a silent one (accepted by the kernel, never served), none. */
class LivenessProberTest {

    private static final NodeProber FALLBACK = node -> Optional.of("judged by slurmd");
    private static final Duration TIMEOUT = Duration.ofMillis(300);
    private ServerSocket server;

    @AfterEach
    void close() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    /** A node whose slurmd port is slurmd's default, so its agent's port is the base port itself. */
    private static Node node() {
        return new NodeParser().parse("NodeName=node2 NodeAddr=127.0.0.1 NodeHostName=localhost Port=6818 State=IDLE");
    }

    /** Answers the first {@code answers} connections with {@code line}, then leaves the rest to the kernel's queue. */
    private int serve(String line, int answers) throws IOException {
        return serveOn(0, line, answers);
    }

    /** As {@link #serve}, on {@code port} (0: any free one). */
    private int serveOn(int port, String line, int answers) throws IOException {
        server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        Thread thread = new Thread(() -> {
            for (int i = 0; i < answers; i++) {
                try (Socket peer = server.accept();
                        OutputStream out = peer.getOutputStream()) {
                    out.write(line.getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    return;
                }
            }
        });
        thread.setDaemon(true);
        thread.start();
        return server.getLocalPort();
    }

    /** A port that greets once and then accepts nothing: once its queue (backlog 1) is full, handshakes go unanswered. */
    private int greetOnceThenJam() throws IOException {
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
        Thread greeter = new Thread(() -> {
            try (Socket peer = server.accept();
                    OutputStream out = peer.getOutputStream()) {
                out.write((LivenessProber.GREETING + "node2 ok\n").getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                // the test fails on its assertions
            }
        });
        greeter.setDaemon(true);
        greeter.start();
        return server.getLocalPort();
    }

    /** Fills {@code port}'s queue of unaccepted connections, as a cut-off address or a squatter that never accepts. */
    private static List<Socket> jam(int port) {
        List<Socket> queued = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Socket filler = new Socket();
            try {
                filler.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            } catch (IOException e) {
                // the queue is full already
            }
            queued.add(filler);
        }
        return queued;
    }

    private static void release(List<Socket> queued) throws IOException {
        for (Socket filler : queued) {
            filler.close();
        }
    }

    @Test
    void anAgentPortThatLeavesTheHandshakeUnansweredWhileSlurmdAnswersIsAReachableNode() throws IOException {
        int port = greetOnceThenJam();
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(port, true)) {
            int[] fallbackAsked = {0};
            LivenessProber prober = new LivenessProber(TIMEOUT, slurmd.basePortFor(port), true, node -> {
                fallbackAsked[0]++;
                return Optional.of("judged by slurmd");
            });
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()), "it greeted once");
            List<Socket> queued = jam(port);
            try {
                // Whoever holds an unprivileged port can jam it like this: slurmd's answer decides.
                assertEquals(Optional.empty(), prober.unreachable(slurmd.node()));
                assertEquals(1, slurmd.lengthsRead(), "slurmd was asked in its own protocol");
                assertEquals(0, fallbackAsked[0]);
                assertFalse(prober.gone(slurmd.node()));
            } finally {
                release(queued);
            }
        }
    }

    @Test
    void anAgentPortThatLeavesTheHandshakeUnansweredWithSlurmdGoneIsACutOffNode() throws IOException {
        int port = greetOnceThenJam();
        SlurmdStandIn slurmd = SlurmdStandIn.near(port, true);
        Node node = slurmd.node();
        LivenessProber prober = new LivenessProber(TIMEOUT, slurmd.basePortFor(port), true, FALLBACK);
        assertEquals(Optional.empty(), prober.unreachable(node), "it greeted once");
        slurmd.close(); // nothing accepts on slurmd's port either
        List<Socket> queued = jam(port);
        try {
            long start = System.nanoTime();
            Optional<String> missed = prober.unreachable(node);
            long took = Duration.ofNanos(System.nanoTime() - start).toMillis();
            assertTrue(missed.orElse("").contains("cut off from the network, or gone"), missed.toString());
            assertTrue(
                    took < TIMEOUT.plus(LivenessProber.HANDSHAKE_WINDOW).toMillis() + 200,
                    "slurmd's handshake cost at most its window: " + took + " ms");
            // A port that never greeted this prober is judged by slurmd's usual probe instead.
            assertEquals(
                    Optional.of("judged by slurmd"),
                    new LivenessProber(TIMEOUT, slurmd.basePortFor(port), true, FALLBACK).unreachable(node));
        } finally {
            release(queued);
        }
    }

    @Test
    void anAgentPortThatLeavesTheHandshakeUnansweredWithSlurmdStoppedIsAFrozenNode() throws IOException {
        int port = greetOnceThenJam();
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(port, false)) {
            LivenessProber prober = new LivenessProber(TIMEOUT, slurmd.basePortFor(port), true, FALLBACK);
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()), "it greeted once");
            List<Socket> queued = jam(port);
            try {
                Optional<String> missed = prober.unreachable(slurmd.node());
                assertTrue(
                        missed.orElse("").contains("processes are stopped or its kernel is wedged"), missed.toString());
            } finally {
                release(queued);
            }
        }
    }

    @Test
    void aGreetingAgentMeansTheNodeRuns() throws IOException {
        int port = serve(LivenessProber.GREETING + "node2 ok\n", 1);
        assertEquals(Optional.empty(), new LivenessProber(TIMEOUT, port, true, FALLBACK).unreachable(node()));
    }

    @Test
    void anAgentThatGreetedAndFellSilentWithItsSlurmdIsAFrozenNode() throws IOException {
        int port = serve(LivenessProber.GREETING + "node2 ok\n", 1);
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(port, false)) {
            LivenessProber prober = new LivenessProber(TIMEOUT, slurmd.basePortFor(port), true, FALLBACK);
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()));
            Optional<String> silent = prober.unreachable(slurmd.node());
            assertTrue(
                    silent.orElseThrow().contains("accepted a connection but did not answer within 300 ms"),
                    silent.toString());
        }
    }

    @Test
    void aFrozenNodeIsFoundInAboutOneTimeoutSinceSlurmdIsAskedWhileTheGreetingIsAwaited() throws IOException {
        int port = serve("unused\n", 0);
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(port, false)) {
            Duration timeout = Duration.ofSeconds(1);
            LivenessProber prober = new LivenessProber(timeout, slurmd.basePortFor(port), false, FALLBACK);
            long start = System.nanoTime();
            Optional<String> silent = prober.unreachable(slurmd.node());
            long took = Duration.ofNanos(System.nanoTime() - start).toMillis();
            assertTrue(silent.orElse("").contains("processes are stopped"), silent.toString());
            assertTrue(took < 1600, "one timeout, not the agent's and then slurmd's: " + took + " ms");
        }
    }

    @Test
    void aLateGreetingStillCountsThoughSlurmdWasAskedMeanwhile() throws IOException {
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        Thread slowAgent = new Thread(() -> {
            try (Socket peer = server.accept();
                    OutputStream out = peer.getOutputStream()) {
                Thread.sleep(150); // past a quarter of the 300 ms timeout: the prober asks slurmd aside
                out.write((LivenessProber.GREETING + "node2 ok\n").getBytes(StandardCharsets.US_ASCII));
            } catch (IOException | InterruptedException e) {
                // the test fails on its assertions
            }
        });
        slowAgent.setDaemon(true);
        slowAgent.start();
        int port = server.getLocalPort();
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(port, true)) {
            LivenessProber prober = new LivenessProber(TIMEOUT, slurmd.basePortFor(port), false, FALLBACK);
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()));
            assertTrue(prober.hasAgent(slurmd.node()), "the greeting, not slurmd, answered");
        }
    }

    @Test
    void silenceFromAPortThatNeverAnsweredIsOnlyEvidenceWhenAskedToTrustIt() throws IOException {
        int port = serve("unused\n", 0);
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(port, false)) {
            int base = slurmd.basePortFor(port);
            assertEquals(
                    Optional.of("judged by slurmd"),
                    new LivenessProber(TIMEOUT, base, true, FALLBACK).unreachable(slurmd.node()));
            assertTrue(new LivenessProber(TIMEOUT, base, false, FALLBACK)
                    .unreachable(slurmd.node())
                    .orElseThrow()
                    .contains("did not answer"));
        }
    }

    @Test
    void aSilentListenerOnTheAgentsPortWhileSlurmdAnswersIsAReachableNode() throws IOException {
        int port = serve("unused\n", 0); // accepts (the kernel does) and never says a word, like a user's squatter
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(port, true)) {
            LivenessProber prober = new LivenessProber(TIMEOUT, slurmd.basePortFor(port), false, FALLBACK);
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()));
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()), "and again, the warning said once");
            assertEquals(2, slurmd.lengthsRead(), "slurmd was asked each time");
            assertFalse(prober.gone(slurmd.node()));
        }
    }

    @Test
    void aSquatterAfterTheAgentGreetedIsNoFrozenNodeEither() throws IOException {
        int port = serve(LivenessProber.GREETING + "node2 ok\n", 1); // greets once, then only queues connections
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(port, true)) {
            LivenessProber prober = new LivenessProber(TIMEOUT, slurmd.basePortFor(port), true, FALLBACK);
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()));
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()));
            assertEquals(1, slurmd.lengthsRead(), "only the silent probe asked slurmd");
        }
    }

    @Test
    void aSilentAgentPortWhereSlurmdAcceptsNothingIsJudgedBySlurmdsProbe() throws IOException {
        int port = serve("unused\n", 0);
        SlurmdStandIn slurmd = SlurmdStandIn.near(port, true);
        slurmd.close(); // its port now refuses
        assertEquals(
                Optional.of("judged by slurmd"),
                new LivenessProber(TIMEOUT, slurmd.basePortFor(port), false, FALLBACK).unreachable(slurmd.node()));
    }

    @Test
    void aGreetingAgentIsEnoughWithoutAskingSlurmd() throws IOException {
        int port = serve(LivenessProber.GREETING + "node2 ok\n", 1);
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(port, true)) {
            assertEquals(
                    Optional.empty(),
                    new LivenessProber(TIMEOUT, slurmd.basePortFor(port), false, FALLBACK).unreachable(slurmd.node()));
            assertEquals(0, slurmd.lengthsRead());
        }
    }

    @Test
    void noAgentOrAnotherServiceLeavesTheJudgementToSlurmd() throws IOException {
        int port = serve("SSH-2.0-OpenSSH_9.2\r\n", 1);
        assertEquals(
                Optional.of("judged by slurmd"),
                new LivenessProber(TIMEOUT, port, false, FALLBACK).unreachable(node()));
        server.close();
        assertEquals(
                Optional.of("judged by slurmd"),
                new LivenessProber(TIMEOUT, port, false, FALLBACK).unreachable(node()));
    }

    @Test
    void aGreetingThatArrivesInPiecesStillCounts() throws IOException {
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        Thread haltingAgent = new Thread(() -> {
            try (Socket peer = server.accept();
                    OutputStream out = peer.getOutputStream()) {
                peer.setTcpNoDelay(true);
                for (String piece : List.of(LivenessProber.GREETING, "node2 unh", "ealthy\n")) {
                    out.write(piece.getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    Thread.sleep(20); // each piece its own segment: the reader's buffer takes them one by one
                }
            } catch (IOException | InterruptedException e) {
                // the test fails on its assertions
            }
        });
        haltingAgent.setDaemon(true);
        haltingAgent.start();
        LivenessProber prober = new LivenessProber(TIMEOUT, server.getLocalPort(), true, FALLBACK);
        assertEquals(Optional.empty(), prober.unreachable(node()));
        assertTrue(prober.speaksForItsNode(node()));
        assertTrue(prober.reportsUnhealthy(node()), "the whole line, not its first piece, was read");
    }

    @Test
    void aGreetingFollowedByMoreIsReadUpToItsLineEnd() throws IOException {
        int port = serve(LivenessProber.GREETING + "node2 ok\nand then some noise\n", 1);
        LivenessProber prober = new LivenessProber(TIMEOUT, port, true, FALLBACK);
        assertEquals(Optional.empty(), prober.unreachable(node()));
        assertTrue(prober.speaksForItsNode(node()));
        assertFalse(prober.reportsUnhealthy(node()));
    }

    @Test
    void anAgentThatSaysItsNodeIsUnhealthyIsAliveButReportsIt() throws IOException {
        int port = serve(LivenessProber.GREETING + "node2 unhealthy\n", 1);
        LivenessProber prober = new LivenessProber(TIMEOUT, port, true, FALLBACK);
        assertEquals(Optional.empty(), prober.unreachable(node()));
        assertTrue(prober.reportsUnhealthy(node()));
    }

    @Test
    void aGreetingForAnotherNodeIsNotThisNodesAgent() throws IOException {
        int port = serve(LivenessProber.GREETING + "node3 unhealthy\n", 1);
        LivenessProber prober = new LivenessProber(TIMEOUT, port, true, FALLBACK);
        assertEquals(
                Optional.of("judged by slurmd"), prober.unreachable(node()), "node3's agent says nothing of node2");
        assertFalse(prober.reportsUnhealthy(node()));
        assertFalse(prober.hasAgent(node()));
        assertFalse(prober.speaksForItsNode(node()));
    }

    @Test
    void anAgentSpeaksForItsNodeOnlyWhileItGreets() throws IOException {
        int port = serve(LivenessProber.GREETING + "node2 ok\n", 1);
        try (SlurmdStandIn slurmd = SlurmdStandIn.near(port, true)) {
            LivenessProber prober = new LivenessProber(TIMEOUT, slurmd.basePortFor(port), true, FALLBACK);
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()));
            assertTrue(prober.speaksForItsNode(slurmd.node()));
            // The port is now silent and slurmd answers: the node runs, but no agent speaks for it.
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()));
            assertFalse(prober.speaksForItsNode(slurmd.node()));
            assertTrue(prober.hasAgent(slurmd.node()), "it did greet once");
        }
    }

    /** A slurmd that refuses connections (nothing listens; the host answers), or, with false, one that times out. */
    private static NodeProber slurmdRefusing(boolean refusing) {
        return new NodeProber() {
            @Override
            public Optional<String> unreachable(Node node) {
                return Optional.of(refusing ? "slurmd refused" : "slurmd timed out");
            }

            @Override
            public boolean refused(Node node) {
                return refusing;
            }
        };
    }

    @Test
    void anAgentThatGreetedAndNowRefusesWithItsSlurmdIsAGoneNode() throws IOException {
        int port = serve(LivenessProber.GREETING + "node2 ok\n", 1);
        LivenessProber prober = new LivenessProber(TIMEOUT, port, true, slurmdRefusing(true));
        assertEquals(Optional.empty(), prober.unreachable(node()));
        assertFalse(prober.gone(node()), "it answered");
        server.close(); // the agent's port now refuses: the kernel answers, nothing listens
        Optional<String> miss = prober.unreachable(node());
        assertTrue(
                miss.orElseThrow().contains("which answered before, refused the connection, and so did slurmd"),
                miss.toString());
        assertTrue(prober.gone(node()));
        assertTrue(prober.refused(node()));
    }

    @Test
    void oneRefusingDaemonIsNotAGoneNode() throws IOException {
        int port = serve(LivenessProber.GREETING + "node2 ok\n", 1);
        LivenessProber timesOut = new LivenessProber(TIMEOUT, port, true, slurmdRefusing(false));
        assertEquals(Optional.empty(), timesOut.unreachable(node()));
        server.close();
        assertEquals(Optional.of("slurmd timed out"), timesOut.unreachable(node()));
        assertFalse(timesOut.gone(node()), "slurmd timed out: not a refusal");
        // An agent that never greeted this prober refuses: only slurmd's word counts, and one refusal is not enough.
        LivenessProber neverGreeted = new LivenessProber(TIMEOUT, port, true, slurmdRefusing(true));
        assertEquals(Optional.of("slurmd refused"), neverGreeted.unreachable(node()));
        assertFalse(neverGreeted.gone(node()));
    }

    @Test
    void aGoneNodeWhoseAgentAnswersAgainIsNoLongerGone() throws IOException {
        int port = serve(LivenessProber.GREETING + "node2 ok\n", 1);
        LivenessProber prober = new LivenessProber(TIMEOUT, port, true, slurmdRefusing(true));
        prober.unreachable(node());
        server.close();
        prober.unreachable(node());
        assertTrue(prober.gone(node()));
        serveOn(port, LivenessProber.GREETING + "node2 ok\n", 1); // the agent restarted on its port
        assertEquals(Optional.empty(), prober.unreachable(node()));
        assertFalse(prober.gone(node()));
    }

    @Test
    void severalNodesOnOneHostGetOnePortEach() {
        assertEquals(818, LivenessProber.port(818, node()));
        assertEquals(
                818 + 17003 - 6818,
                LivenessProber.port(
                        818, new NodeParser().parse("NodeName=node3 NodeAddr=127.0.0.1 Port=17003 State=IDLE")));
        assertThrows(IllegalArgumentException.class, () -> LivenessProber.port(65500, 7000));
    }

    /**
     * An agent that keeps connections: greets each one, then answers each question byte on it
     * with a greeting while {@code answering}; counts its connections and questions.
     */
    private static final class KeepingAgent implements AutoCloseable {
        final ServerSocket server;
        final AtomicInteger connections = new AtomicInteger();
        final AtomicInteger questions = new AtomicInteger();
        final AtomicBoolean answering = new AtomicBoolean(true);
        final List<Socket> peers = new ArrayList<>();
        /** One permit for each connection whose serving ended (its peer closed it, or this agent did). */
        final Semaphore ended = new Semaphore(0);

        private final Thread acceptor;
        volatile String line = LivenessProber.GREETING + "node2 ok\n";

        KeepingAgent(int port) throws IOException {
            server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
            acceptor = new Thread(() -> {
                while (true) {
                    Socket peer;
                    try {
                        peer = server.accept();
                    } catch (IOException e) {
                        return;
                    }
                    connections.incrementAndGet();
                    synchronized (peers) {
                        peers.add(peer);
                    }
                    Thread serving = new Thread(() -> serve(peer));
                    serving.setDaemon(true);
                    serving.start();
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private void serve(Socket peer) {
            try (peer) {
                OutputStream out = peer.getOutputStream();
                InputStream in = peer.getInputStream();
                out.write(line.getBytes(StandardCharsets.US_ASCII));
                for (int b = in.read(); b == LivenessProber.ASK_AGAIN; b = in.read()) {
                    questions.incrementAndGet();
                    if (answering.get()) {
                        out.write(line.getBytes(StandardCharsets.US_ASCII));
                    }
                }
            } catch (IOException e) {
                // the peer left
            } finally {
                ended.release();
            }
        }

        int port() {
            return server.getLocalPort();
        }

        /**
         * Ends every connection, as an agent that restarts does, and stops listening: once the
         * accepting thread has left accept(), which holds the listening socket (and its queue)
         * open until it returns.
         */
        @Override
        public void close() throws IOException {
            server.close();
            try {
                acceptor.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (peers) {
                for (Socket peer : peers) {
                    peer.close();
                }
            }
        }
    }

    @Test
    void anAgentThatKeepsTheConnectionIsAskedOnItAgainAndAgain() throws IOException {
        try (KeepingAgent agent = new KeepingAgent(0);
                SlurmdStandIn slurmd = SlurmdStandIn.near(agent.port(), true);
                LivenessProber prober = new LivenessProber(TIMEOUT, slurmd.basePortFor(agent.port()), true, FALLBACK)) {
            for (int i = 0; i < 10; i++) {
                assertEquals(Optional.empty(), prober.unreachable(slurmd.node()));
                assertTrue(prober.speaksForItsNode(slurmd.node()));
            }
            assertEquals(1, agent.connections.get(), "one connection");
            assertEquals(9, agent.questions.get(), "a question a probe after the first");
            agent.line = LivenessProber.GREETING + "node2 unhealthy\n";
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()));
            assertTrue(
                    prober.reportsUnhealthy(slurmd.node()), "the answer on the kept connection is read as a greeting");
            assertEquals(0, slurmd.lengthsRead());
        }
    }

    @Test
    void anAgentSilentOnItsKeptConnectionWithItsSlurmdIsAFrozenNode() throws IOException {
        try (KeepingAgent agent = new KeepingAgent(0);
                SlurmdStandIn slurmd = SlurmdStandIn.near(agent.port(), false);
                LivenessProber prober = new LivenessProber(TIMEOUT, slurmd.basePortFor(agent.port()), true, FALLBACK)) {
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()));
            agent.answering.set(false);
            long start = System.nanoTime();
            Optional<String> silent = prober.unreachable(slurmd.node());
            long took = Duration.ofNanos(System.nanoTime() - start).toMillis();
            assertTrue(
                    silent.orElse("").contains("did not answer on its open connection within 300 ms")
                            && silent.orElse("").contains("processes are stopped or its kernel is wedged"),
                    silent.toString());
            assertTrue(took < TIMEOUT.toMillis() + 200, "one timeout, slurmd asked beside it: " + took + " ms");
            assertFalse(prober.speaksForItsNode(slurmd.node()));
            // The silent connection is dropped: the next probe connects anew, and that one is greeted.
            agent.answering.set(true);
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()));
            assertEquals(2, agent.connections.get());
        }
    }

    @Test
    void anAgentSilentOnItsKeptConnectionWhileSlurmdAnswersIsAReachableNode() throws IOException {
        try (KeepingAgent agent = new KeepingAgent(0);
                SlurmdStandIn slurmd = SlurmdStandIn.near(agent.port(), true);
                LivenessProber prober = new LivenessProber(TIMEOUT, slurmd.basePortFor(agent.port()), true, FALLBACK)) {
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()));
            agent.answering.set(false);
            assertEquals(Optional.empty(), prober.unreachable(slurmd.node()));
            assertEquals(1, slurmd.lengthsRead(), "slurmd was asked in its own protocol");
            assertFalse(prober.speaksForItsNode(slurmd.node()));
        }
    }

    @Test
    void anAgentSilentOnItsKeptConnectionWithSlurmdGoneIsACutOffNode() throws IOException {
        try (KeepingAgent agent = new KeepingAgent(0)) {
            SlurmdStandIn slurmd = SlurmdStandIn.near(agent.port(), true);
            Node node = slurmd.node();
            LivenessProber prober = new LivenessProber(TIMEOUT, slurmd.basePortFor(agent.port()), true, FALLBACK);
            assertEquals(Optional.empty(), prober.unreachable(node));
            slurmd.close(); // nothing accepts on slurmd's port any more
            agent.answering.set(false);
            Optional<String> missed = prober.unreachable(node);
            assertTrue(missed.orElse("").contains("cut off from the network, or gone"), missed.toString());
            prober.close();
        }
    }

    @Test
    void aKeptConnectionThatEndsIsReplacedWithinTheSameProbe() throws IOException {
        KeepingAgent agent = new KeepingAgent(0);
        int port = agent.port();
        try (LivenessProber prober = new LivenessProber(TIMEOUT, port, true, slurmdRefusing(true))) {
            assertEquals(Optional.empty(), prober.unreachable(node()));
            assertEquals(Optional.empty(), prober.unreachable(node()), "answered on the kept connection");
            agent.close(); // the agent restarts: its connections end
            try (KeepingAgent restarted = new KeepingAgent(port)) {
                assertEquals(Optional.empty(), prober.unreachable(node()), "no miss for the ended connection");
                assertEquals(1, restarted.connections.get());
                assertEquals(Optional.empty(), prober.unreachable(node()));
                assertEquals(1, restarted.connections.get(), "and the new one is kept");
            }
            // Stopped, not restarted: the kept connection ends, the new one is refused, slurmd too.
            Optional<String> miss = prober.unreachable(node());
            assertTrue(miss.orElse("").contains("which answered before, refused the connection"), miss.toString());
            assertTrue(prober.gone(node()));
        }
    }

    @Test
    void anAgentThatGreetsAndClosesIsAskedWithAConnectionEachTime() throws IOException {
        int port = serve(LivenessProber.GREETING + "node2 ok\n", 20);
        try (LivenessProber prober = new LivenessProber(TIMEOUT, port, true, FALLBACK)) {
            for (int i = 0; i < 20; i++) {
                assertEquals(Optional.empty(), prober.unreachable(node()), "probe " + i);
                assertTrue(prober.speaksForItsNode(node()));
            }
        }
    }

    @Test
    void aKeptConnectionThatSaysAnythingButTheGreetingIsReplaced() throws IOException {
        try (KeepingAgent agent = new KeepingAgent(0);
                LivenessProber prober = new LivenessProber(TIMEOUT, agent.port(), true, FALLBACK)) {
            assertEquals(Optional.empty(), prober.unreachable(node()));
            agent.line = LivenessProber.GREETING + "node2 ok\nnoise\n"; // more than the line: not kept
            assertEquals(Optional.empty(), prober.unreachable(node()), "a new connection decided");
            assertEquals(2, agent.connections.get());
            agent.line = LivenessProber.GREETING + "node3 ok\n";
            assertEquals(Optional.of("judged by slurmd"), prober.unreachable(node()), "another node's agent");
        }
    }

    @Test
    void closingTheProberEndsItsKeptConnections() throws IOException, InterruptedException {
        try (KeepingAgent agent = new KeepingAgent(0)) {
            LivenessProber prober = new LivenessProber(TIMEOUT, agent.port(), true, FALLBACK);
            assertEquals(Optional.empty(), prober.unreachable(node()));
            prober.close();
            assertTrue(agent.ended.tryAcquire(5, TimeUnit.SECONDS), "the prober closed its end");
            assertEquals(Optional.empty(), prober.unreachable(node()), "a closed prober still probes, connecting anew");
            assertEquals(2, agent.connections.get());
        }
    }

    @Test
    void questionsAskedAheadOfARoundAreEachAnsweredOnce() throws IOException {
        try (KeepingAgent agent = new KeepingAgent(0);
                LivenessProber prober = new LivenessProber(TIMEOUT, agent.port(), true, FALLBACK)) {
            assertEquals(Optional.empty(), prober.unreachable(node()));
            for (int round = 0; round < 5; round++) {
                prober.roundStarts(List.of(node()));
                prober.roundStarts(List.of(node())); // twice: still one question outstanding
                assertEquals(Optional.empty(), prober.unreachable(node()));
                assertTrue(prober.speaksForItsNode(node()));
            }
            assertEquals(1, agent.connections.get(), "the connection survived: never two questions at once");
            assertEquals(5, agent.questions.get());
        }
    }

    @Test
    void anAnswerLeftUnreadPastTheTimeoutIsNotTakenForALaterProbes() throws Exception {
        try (KeepingAgent agent = new KeepingAgent(0);
                LivenessProber prober = new LivenessProber(TIMEOUT, agent.port(), true, FALLBACK)) {
            assertEquals(Optional.empty(), prober.unreachable(node()));
            prober.roundStarts(List.of(node())); // answered "ok" now, and left unread
            agent.line = LivenessProber.GREETING + "node2 unhealthy\n";
            Thread.sleep(TIMEOUT.toMillis() + 50); // the condition is the time itself: the answer grows old
            assertEquals(Optional.empty(), prober.unreachable(node()));
            assertTrue(prober.reportsUnhealthy(node()), "the agent's word now, on a new connection");
            assertEquals(2, agent.connections.get());
        }
    }
}
