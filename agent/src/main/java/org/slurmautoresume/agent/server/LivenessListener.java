package org.slurmautoresume.agent.server;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
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
 * {@code unhealthy} for a minute after this agent marked its node). Nothing privileged happens:
 * the answer says only that this process still runs, which {@code sinfo} tells anyone anyway.
 * When the node freezes, the serving thread stops with it while the kernel may still complete
 * handshakes: the silence is what the probe sees.
 *
 * <p>A prober that asks every second keeps its connection: after the greeting, each single byte
 * {@link LivenessProber#ASK_AGAIN} it sends is answered with a fresh greeting line, which spares
 * both ends a connection's setup and teardown per probe. The one input read is that byte: a read
 * takes at most two bytes, and anything but exactly the one byte (more, another byte, the end)
 * closes the connection, so there is nothing to parse or buffer. Connections are kept only within
 * bounds ({@value #HELD_PER_PEER} per peer address, {@value #HELD} in all) and for
 * {@link #HELD_IDLE} without a question; beyond them a connection is greeted and closed as an
 * agent that keeps none would, and the prober asks with a connection each time. An answer that
 * does not fit the send buffer at once (a peer that asks and never reads) closes the connection.
 * One thread serves it all without blocking (a selector), so a flood of connections or questions
 * costs each one microseconds, never a thread or more than the bounded descriptors.
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
    /** Connections kept open for further questions, in all and from one peer address. */
    static final int HELD = 64;

    static final int HELD_PER_PEER = 8;
    /** How long a kept connection may go without a question (a watch asks each second). */
    static final Duration HELD_IDLE = Duration.ofSeconds(10);

    private final ServerSocketChannel channel;
    private final byte[] healthy;
    private final byte[] unhealthy;
    private final NodeVerdict verdict;
    private final Thread thread;
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    /** The fresh-check port's round out of turn; null on the liveness port. */
    private final Supplier<CompletableFuture<Void>> freshCheck;

    private final AtomicInteger waiting = new AtomicInteger();

    /** The liveness port's selector (null on the fresh-check port); the serving thread alone uses it and what follows. */
    private final Selector selector;

    private final Map<InetAddress, Integer> heldPerPeer = new HashMap<>();
    private int held;
    private final ByteBuffer question = ByteBuffer.allocate(2);
    private final Duration heldIdle;

    private LivenessListener(
            ServerSocketChannel channel,
            String node,
            NodeVerdict verdict,
            Supplier<CompletableFuture<Void>> freshCheck,
            Selector selector,
            Duration heldIdle) {
        this.channel = channel;
        this.heldIdle = heldIdle;
        this.freshCheck = freshCheck;
        this.selector = selector;
        this.healthy = (LivenessProber.GREETING + node + " ok\n").getBytes(StandardCharsets.US_ASCII);
        this.unhealthy = (LivenessProber.GREETING + node + " unhealthy\n").getBytes(StandardCharsets.US_ASCII);
        this.verdict = verdict;
        this.thread = new Thread(selector == null ? this::serve : this::serveKeeping, "liveness");
        this.thread.setDaemon(true);
    }

    /**
     * Listens on {@code address} for {@code node} (a valid node name) and starts answering what
     * {@code verdict} says of the node: ok, or unhealthy for a while after a mark.
     */
    public static LivenessListener start(InetSocketAddress address, String node, NodeVerdict verdict)
            throws IOException {
        return start(address, node, verdict, null, HELD_IDLE);
    }

    /** As {@link #start(InetSocketAddress, String, NodeVerdict)}, dropping kept connections idle for {@code heldIdle}. */
    static LivenessListener start(InetSocketAddress address, String node, NodeVerdict verdict, Duration heldIdle)
            throws IOException {
        return start(address, node, verdict, null, heldIdle);
    }

    /**
     * The fresh-check port: as {@link #start}, but each greeting says what {@code verdict} holds
     * once {@code freshCheck}'s round has run (or {@link #FRESH_WITHIN} passed): the node's
     * checks, asked for out of turn, mark it where they find a fault.
     */
    public static LivenessListener startFresh(
            InetSocketAddress address, String node, NodeVerdict verdict, Supplier<CompletableFuture<Void>> freshCheck)
            throws IOException {
        return start(address, node, verdict, Objects.requireNonNull(freshCheck), HELD_IDLE);
    }

    private static LivenessListener start(
            InetSocketAddress address,
            String node,
            NodeVerdict verdict,
            Supplier<CompletableFuture<Void>> freshCheck,
            Duration heldIdle)
            throws IOException {
        if (!Hostlist.isValidHostname(node)) {
            throw new IllegalArgumentException("not a node name: " + node);
        }
        ServerSocketChannel channel = ServerSocketChannel.open();
        Selector selector = null;
        try {
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.bind(address, BACKLOG);
            if (freshCheck == null) {
                selector = Selector.open();
                channel.configureBlocking(false);
                channel.register(selector, SelectionKey.OP_ACCEPT);
            }
        } catch (IOException | RuntimeException e) {
            channel.close();
            if (selector != null) {
                selector.close();
            }
            throw e;
        }
        LivenessListener listener = new LivenessListener(channel, node, verdict, freshCheck, selector, heldIdle);
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

    /** Greetings written so far: one per connection, and one per question on a kept connection. */
    public long answered() {
        return answered.get();
    }

    /** Connections accepted so far. */
    public long accepted() {
        return accepted.get();
    }

    private void serve() {
        while (channel.isOpen()) {
            SocketChannel peer;
            try {
                peer = accept();
            } catch (ClosedChannelException e) {
                return;
            }
            if (peer == null) {
                continue;
            }
            accepted.incrementAndGet();
            if (waiting.incrementAndGet() > FRESH_WAITING) {
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

    /** The liveness port: greets each connection, keeps those within bounds, answers their questions. */
    private void serveKeeping() {
        long idleNanos = heldIdle.toNanos();
        long nextIdleCheck = System.nanoTime() + idleNanos;
        try {
            while (channel.isOpen()) {
                selector.select(Math.max(1, (nextIdleCheck - System.nanoTime()) / 1_000_000));
                for (SelectionKey key : selector.selectedKeys()) {
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        acceptAll();
                    } else if (key.isReadable()) {
                        answerQuestion(key);
                    }
                }
                selector.selectedKeys().clear();
                long now = System.nanoTime();
                if (now - nextIdleCheck >= 0) {
                    dropIdle(now, idleNanos);
                    nextIdleCheck = now + idleNanos / 4;
                }
            }
        } catch (ClosedChannelException e) {
            // closed while serving
        } catch (IOException e) {
            LOG.warn("the liveness port stopped serving: {}", e.getMessage());
        } finally {
            for (SelectionKey key : selector.keys()) {
                if (key.attachment() instanceof Kept) {
                    closeQuietly((SocketChannel) key.channel());
                }
            }
            try {
                selector.close(); // deregisters the closed port, which the kernel then closes too
            } catch (IOException e) {
                LOG.debug("closing the liveness selector: {}", e.getMessage());
            }
        }
    }

    /** A connection kept for further questions: whose it is and when it last asked. */
    private static final class Kept {
        final InetAddress peer;
        long lastAsked;

        Kept(InetAddress peer, long lastAsked) {
            this.peer = peer;
            this.lastAsked = lastAsked;
        }
    }

    private void acceptAll() throws IOException {
        SocketChannel peer;
        while ((peer = accept()) != null) {
            accepted.incrementAndGet();
            boolean kept = false;
            try {
                peer.configureBlocking(false);
                if (!answer(peer)) {
                    continue;
                }
                InetAddress address = ((InetSocketAddress) peer.getRemoteAddress()).getAddress();
                int fromPeer = heldPerPeer.getOrDefault(address, 0);
                if (held < HELD && fromPeer < HELD_PER_PEER) {
                    peer.register(selector, SelectionKey.OP_READ, new Kept(address, System.nanoTime()));
                    heldPerPeer.put(address, fromPeer + 1);
                    held++;
                    kept = true;
                }
            } catch (IOException e) {
                LOG.debug("liveness peer lost: {}", e.getMessage());
            } finally {
                if (!kept) {
                    closeQuietly(peer);
                }
            }
        }
    }

    /** The next waiting connection, null when none waits; a failed accept is logged and skipped. */
    private SocketChannel accept() throws ClosedChannelException {
        try {
            return channel.accept();
        } catch (ClosedChannelException e) {
            throw e;
        } catch (IOException e) {
            LOG.debug("liveness accept failed: {}", e.getMessage());
            return null;
        }
    }

    /** A kept connection is readable: exactly the one question byte is answered; anything else ends it. */
    private void answerQuestion(SelectionKey key) {
        SocketChannel peer = (SocketChannel) key.channel();
        Kept kept = (Kept) key.attachment();
        question.clear();
        int read;
        try {
            read = peer.read(question);
        } catch (IOException e) {
            read = -1;
        }
        if (read == 0) {
            return;
        }
        if (read == 1 && question.get(0) == LivenessProber.ASK_AGAIN && answer(peer)) {
            kept.lastAsked = System.nanoTime();
            return;
        }
        drop(key);
    }

    /** Ends the kept connections that asked nothing for {@code idleNanos}. */
    private void dropIdle(long now, long idleNanos) {
        for (SelectionKey key : selector.keys()) {
            if (key.attachment() instanceof Kept kept && now - kept.lastAsked > idleNanos) {
                drop(key);
            }
        }
    }

    private void drop(SelectionKey key) {
        Kept kept = (Kept) key.attachment();
        key.cancel();
        closeQuietly((SocketChannel) key.channel());
        held--;
        heldPerPeer.computeIfPresent(kept.peer, (address, count) -> count == 1 ? null : count - 1);
    }

    /**
     * Writes the greeting into the peer's send buffer without blocking: whole, true; a buffer too
     * full to take it (a peer that asks and does not read) or a peer gone, false.
     */
    private boolean answer(SocketChannel peer) {
        try {
            ByteBuffer line = ByteBuffer.wrap(verdict.unhealthy() ? unhealthy : healthy);
            peer.write(line);
            if (line.hasRemaining()) {
                return false;
            }
            answered.incrementAndGet();
            return true;
        } catch (IOException e) {
            LOG.debug("liveness answer not delivered: {}", e.getMessage());
            return false;
        }
    }

    /** Writes the greeting into the peer's empty send buffer (never blocks) and closes it. */
    private void greet(SocketChannel peer) {
        try (peer) {
            peer.configureBlocking(false);
            answer(peer);
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
     * after close() could still be greeted; a channel registered with a selector is likewise
     * closed only at the selector's next round. The thread is woken and waited for.
     */
    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("closing the liveness port: {}", e.getMessage());
        }
        if (selector != null) {
            selector.wakeup();
        }
        try {
            thread.join(CLOSE_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
