package org.slurmautoresume.agent.server;

import java.io.Closeable;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.protocol.AgentJson;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.agent.protocol.LineChannel;
import org.slurmautoresume.slurm.model.Caller;

/**
 * The agent's Unix domain socket: one request line per connection, one response line back.
 * Who asks is read from the kernel ({@code SO_PEERCRED}), never from the request. The socket
 * file is 0666 so every user can connect; what each may do is decided per request.
 *
 * <p>Any user can connect, so no user may starve the others (fair under load): the
 * acceptor only accepts, reads the peer's uid and queues the connection under that uid; a uid
 * already holding {@link #CONNECTIONS_PER_UID} connections gets a refusal line and is closed at
 * once. A few workers take connections round-robin over the uids ({@link FairQueue}), at most
 * {@link #RUNNING_PER_UID} per uid at once, so a user's idle or slow connections tie up only
 * that user's share of the workers, each for at most the read deadline. Root (the site's tools)
 * is one uid among the others and so always gets its turn.
 */
public final class AgentServer implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(AgentServer.class);
    /** Clients send their line as soon as they connect: a line not there by then is not coming. */
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(2);

    private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(5);
    static final int WORKERS = 8;
    /** Waiting or being answered, per uid: far above what one node's jobs of one user ask at once. */
    static final int CONNECTIONS_PER_UID = 32;
    /** Being answered at once, per uid: leaves most workers to the other users. */
    static final int RUNNING_PER_UID = 3;
    /** The kernel's queue of connections not yet accepted; the acceptor drains it quickly. */
    private static final int BACKLOG = 1024;

    private static final long REFUSAL_LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Path socket;
    private final AgentService service;
    private final Duration readTimeout;
    private final FairQueue<Long, Connection> queue = new FairQueue<>(CONNECTIONS_PER_UID, RUNNING_PER_UID);
    private final List<Thread> workers = new ArrayList<>();
    private final AtomicLong refusedSinceLog = new AtomicLong();
    private volatile long lastRefusalLog = System.nanoTime() - REFUSAL_LOG_EVERY_NANOS;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private ServerSocketChannel server;
    private RequestLanes lanes;
    private volatile boolean closing;

    public AgentServer(Path socket, AgentService service, Duration readTimeout) {
        this.socket = socket.toAbsolutePath();
        this.service = Objects.requireNonNull(service);
        this.readTimeout = Objects.requireNonNull(readTimeout);
    }

    /** An accepted connection and who is on the other end. */
    private record Connection(SocketChannel channel, Caller caller) {}

    public Path socket() {
        return socket;
    }

    /**
     * Binds the socket (replacing a stale file an earlier agent left, refusing to start when an
     * agent still answers on it or something other than a socket is there) and starts accepting.
     */
    public synchronized void start() throws IOException {
        if (closing) {
            // Closed before it started (a SIGTERM while the agent was starting): a socket bound now would outlive it.
            throw new IOException("the server was closed before it started");
        }
        if (Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .isOther()) {
                throw new IOException(socket + " exists and is not a socket; not replacing it");
            }
            if (answers(socket)) {
                throw new IOException("an agent is already listening on " + socket);
            }
            LOG.info("removing the stale socket {}", socket);
            Files.delete(socket);
        }
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket), BACKLOG);
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
        lanes = new RequestLanes(service);
        for (int i = 1; i <= WORKERS; i++) {
            Thread worker = new Thread(() -> queue.serve(c -> answer(c.channel(), c.caller())), "agent-worker-" + i);
            worker.setDaemon(true);
            worker.start();
            workers.add(worker);
        }
        Thread acceptor = new Thread(this::acceptLoop, "agent-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Blocks until {@link #close()} has stopped the server. */
    public void awaitStopped() throws InterruptedException {
        stopped.await();
    }

    private static boolean answers(Path socket) {
        try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private void acceptLoop() {
        try {
            while (!closing) {
                admit(server.accept());
            }
        } catch (ClosedChannelException e) {
            // close() was called
        } catch (IOException e) {
            if (!closing) {
                LOG.error("the agent socket {} failed: {}", socket, e.getMessage());
            }
        } finally {
            stopped.countDown();
        }
    }

    /** Queues the connection under its uid, or refuses it when that uid holds its share already. */
    private void admit(SocketChannel client) {
        Caller caller;
        try {
            caller = caller(client);
        } catch (IOException | RuntimeException e) {
            LOG.debug("no peer credentials for a connection: {}", e.getMessage());
            closeQuietly(client);
            return;
        }
        if (queue.offer(caller.uid(), new Connection(client, caller))) {
            return;
        }
        // Not audited: a flood would flood the audit log. Counted, and logged at most every 10 s.
        refuseBusy(client, caller);
        long refused = refusedSinceLog.incrementAndGet();
        long now = System.nanoTime();
        if (now - lastRefusalLog >= REFUSAL_LOG_EVERY_NANOS) {
            lastRefusalLog = now;
            refusedSinceLog.addAndGet(-refused);
            LOG.warn(
                    "refused {} connection(s) over the limit of {} per user, the latest from {}",
                    refused,
                    CONNECTIONS_PER_UID,
                    caller);
        }
    }

    /** One try to say why (never waiting on a client that does not read), then close. */
    private static void refuseBusy(SocketChannel client, Caller caller) {
        try (client) {
            String why = AgentClient.BUSY + caller.name() + " already has " + CONNECTIONS_PER_UID
                    + " connections to the agent open; connection closed";
            client.configureBlocking(false);
            client.write(ByteBuffer.wrap(
                    (AgentJson.line(AgentResponse.refused(List.of(), why)) + "\n").getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            // the client is gone already
        }
    }

    /** Reads the request line and hands it to its lane, which answers it; refusals are answered here. */
    private void answer(SocketChannel client, Caller caller) {
        boolean handedOver = false;
        try {
            long deadline = System.nanoTime() + readTimeout.toNanos();
            String response;
            try {
                String line = LineChannel.readLine(client, deadline, AgentJson.MAX_LINE_BYTES);
                if (line == null) {
                    return;
                }
                handedOver = lanes.offer(client, caller, line);
                if (handedOver) {
                    return;
                }
                response = lanes.busy(caller, line);
            } catch (LineChannel.LineTooLongException e) {
                response = service.refuse(
                        caller,
                        "(not recorded: request too long)",
                        "bad request: longer than " + AgentJson.MAX_LINE_BYTES + " bytes");
            } catch (CharacterCodingException e) {
                response = service.refuse(caller, "(not recorded: not UTF-8)", "bad request: not UTF-8 text");
            } catch (SocketTimeoutException e) {
                service.refuse(
                        caller,
                        "(no complete request)",
                        "no complete request line within " + readTimeout.toMillis() + " ms; connection closed");
                return;
            }
            LineChannel.writeLine(client, response, System.nanoTime() + WRITE_TIMEOUT.toNanos());
        } catch (IOException e) {
            LOG.debug("a client connection ended early: {}", e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("internal error answering a client", e);
        } finally {
            if (!handedOver) {
                closeQuietly(client);
            }
        }
    }

    private static Caller caller(SocketChannel client) throws IOException {
        UnixDomainPrincipal peer = client.getOption(ExtendedSocketOptions.SO_PEERCRED);
        String name = peer.user().getName();
        OptionalLong uid = UnixUsers.uidOf(name);
        // A uid that cannot be found is nobody's: it matches no job's owner and is not root.
        return new Caller(uid.orElse(-1), name);
    }

    @Override
    public synchronized void close() {
        closing = true;
        if (server != null) {
            closeQuietly(server);
            try {
                Files.deleteIfExists(socket);
            } catch (IOException e) {
                LOG.warn("could not remove {}: {}", socket, e.getMessage());
            }
        } else {
            stopped.countDown();
        }
        queue.close().forEach(waiting -> closeQuietly(waiting.channel()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        try {
            for (Thread worker : workers) {
                worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (lanes != null) {
            // Requests being acted on finish (a mark half done is worse than a late exit); waiting ones are closed.
            lanes.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // nothing more to do
        }
    }
}
