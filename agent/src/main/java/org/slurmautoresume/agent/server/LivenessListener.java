package org.slurmautoresume.agent.server;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.probe.LivenessProber;

/**
 * Answers "is this node's software still running?" over TCP for supervisors and agents on other
 * nodes: every connection gets one greeting line ({@code autoresume-agent 1 NODE ok}, or
 * {@code unhealthy} for a minute after this agent marked its node) and is closed. Nothing is
 * read from the peer, so there is no input to trust, parse or wait for, and nothing privileged
 * happens: the answer says only that this process still runs, which
 * {@code sinfo} tells anyone anyway. One thread accepts, writes at most a few dozen bytes into
 * a fresh socket's empty send buffer (never blocks) and closes, so a flood of connections costs
 * each one microseconds, not a thread. When the node freezes, this thread stops with it while
 * the kernel may still complete handshakes: the silence is what the probe sees.
 *
 * <p>The same class serves the agent's fresh-check port ({@link #startFresh}): there each greeting
 * waits for a round of the node's checks run out of turn (shared by everyone who asks within a
 * couple of seconds), so the word is a fresh verdict rather than the last one. Still nothing is
 * read, and no thread waits per peer: each waiting peer is a callback on that one round, and a
 * peer beyond {@value #FRESH_WAITING} waiting is closed unanswered.
 */
public final class LivenessListener implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(LivenessListener.class);
    /** Connections the kernel queues while this thread is busy; a burst of probes fits. */
    private static final int BACKLOG = 1024;

    private static final long CLOSE_WAIT_MS = 5_000;
    /** How long a fresh-check greeting waits for the round it asked for: within a supervisor's 3 s. */
    static final Duration FRESH_WITHIN = Duration.ofMillis(2500);
    /** Fresh-check peers waiting for their round at once; more are closed unanswered. */
    static final int FRESH_WAITING = 256;

    private final ServerSocketChannel channel;
    private final byte[] healthy;
    private final byte[] unhealthy;
    private final NodeVerdict verdict;
    private final Thread thread;
    private final AtomicLong answered = new AtomicLong();
    /** The fresh-check port's round out of turn; null on the liveness port. */
    private final Supplier<CompletableFuture<Void>> freshCheck;

    private final AtomicInteger waiting = new AtomicInteger();

    private LivenessListener(
            ServerSocketChannel channel,
            String node,
            NodeVerdict verdict,
            Supplier<CompletableFuture<Void>> freshCheck) {
        this.channel = channel;
        this.freshCheck = freshCheck;
        this.healthy = (LivenessProber.GREETING + node + " ok\n").getBytes(StandardCharsets.US_ASCII);
        this.unhealthy = (LivenessProber.GREETING + node + " unhealthy\n").getBytes(StandardCharsets.US_ASCII);
        this.verdict = verdict;
        this.thread = new Thread(this::serve, "liveness");
        this.thread.setDaemon(true);
    }

    /**
     * Listens on {@code address} for {@code node} (a valid node name) and starts answering what
     * {@code verdict} says of the node: ok, or unhealthy for a while after a mark.
     */
    public static LivenessListener start(InetSocketAddress address, String node, NodeVerdict verdict)
            throws IOException {
        return start(address, node, verdict, null);
    }

    /**
     * The fresh-check port: as {@link #start}, but each greeting says what {@code verdict} holds
     * once {@code freshCheck}'s round has run (or {@link #FRESH_WITHIN} passed): the node's
     * checks, asked for out of turn, mark it where they find a fault.
     */
    public static LivenessListener startFresh(
            InetSocketAddress address, String node, NodeVerdict verdict, Supplier<CompletableFuture<Void>> freshCheck)
            throws IOException {
        return start(address, node, verdict, Objects.requireNonNull(freshCheck));
    }

    private static LivenessListener start(
            InetSocketAddress address, String node, NodeVerdict verdict, Supplier<CompletableFuture<Void>> freshCheck)
            throws IOException {
        if (!Hostlist.isValidHostname(node)) {
            throw new IllegalArgumentException("not a node name: " + node);
        }
        ServerSocketChannel channel = ServerSocketChannel.open();
        try {
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.bind(address, BACKLOG);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        LivenessListener listener = new LivenessListener(channel, node, verdict, freshCheck);
        listener.thread.start();
        return listener;
    }

    public int port() {
        try {
            return ((InetSocketAddress) channel.getLocalAddress()).getPort();
        } catch (IOException e) {
            return -1;
        }
    }

    /** Connections greeted so far. */
    public long answered() {
        return answered.get();
    }

    private void serve() {
        while (channel.isOpen()) {
            SocketChannel peer;
            try {
                peer = channel.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                LOG.debug("liveness accept failed: {}", e.getMessage());
                continue;
            }
            if (freshCheck == null) {
                greet(peer);
            } else if (waiting.incrementAndGet() > FRESH_WAITING) {
                waiting.decrementAndGet();
                closeQuietly(peer); // more askers than the port keeps waiting: this one learns nothing
            } else {
                // A copy times out, not the shared round; a round late past the bound answers with what is held.
                freshCheck
                        .get()
                        .copy()
                        .completeOnTimeout(null, FRESH_WITHIN.toMillis(), TimeUnit.MILLISECONDS)
                        .whenComplete((done, failed) -> {
                            waiting.decrementAndGet();
                            greet(peer);
                        });
            }
        }
    }

    /** Writes the greeting into the peer's empty send buffer (never blocks) and closes it. */
    private void greet(SocketChannel peer) {
        try (peer) {
            peer.configureBlocking(false);
            peer.write(ByteBuffer.wrap(verdict.unhealthy() ? unhealthy : healthy));
            answered.incrementAndGet();
        } catch (IOException e) {
            // A peer that left before its greeting: nothing to do for it.
            LOG.debug("liveness answer not delivered: {}", e.getMessage());
        }
    }

    private static void closeQuietly(SocketChannel peer) {
        try {
            peer.close();
        } catch (IOException e) {
            LOG.debug("closing an unanswered peer: {}", e.getMessage());
        }
    }

    /**
     * Stops answering, and returns once the port takes no more connections. Closing the channel
     * alone is not enough: while the serving thread sits in accept(), the kernel keeps the
     * listening socket (and its backlog) until that call returns, so a connection made just
     * after close() could still be greeted. The thread is woken by the close and waited for.
     */
    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("closing the liveness port: {}", e.getMessage());
        }
        try {
            thread.join(CLOSE_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
