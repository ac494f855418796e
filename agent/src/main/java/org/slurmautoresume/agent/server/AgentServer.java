package org.slurmautoresume.agent.server;

import org.slurmautoresume.slurm.model.Caller;
import org.slurmautoresume.agent.protocol.LineChannel;
import org.slurmautoresume.agent.protocol.AgentJson;

import java.io.Closeable;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's Unix domain socket: one request line per connection, one response line back.
 * Who asks is read from the kernel ({@code SO_PEERCRED}), never from the request. The socket
 * file is 0666 so every user can connect; what each may do is decided per request. A few
 * worker threads answer; connections beyond what they and a short queue hold are closed at once.
 */
public final class AgentServer implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(AgentServer.class);
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(5);
    private static final int WORKERS = 8;
    private static final int QUEUED = 64;

    private final Path socket;
    private final AgentService service;
    private final Duration readTimeout;
    private final ThreadPoolExecutor workers;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private ServerSocketChannel server;
    private volatile boolean closing;

    public AgentServer(Path socket, AgentService service, Duration readTimeout) {
        this.socket = socket.toAbsolutePath();
        this.service = Objects.requireNonNull(service);
        this.readTimeout = Objects.requireNonNull(readTimeout);
        AtomicInteger count = new AtomicInteger();
        this.workers = new ThreadPoolExecutor(WORKERS, WORKERS, 0, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(QUEUED), r -> {
                    Thread t = new Thread(r, "agent-worker-" + count.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }

    public Path socket() {
        return socket;
    }

    /**
     * Binds the socket (replacing a stale file an earlier agent left, refusing to start when an
     * agent still answers on it or something other than a socket is there) and starts accepting.
     */
    public synchronized void start() throws IOException {
        if (Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther()) {
                throw new IOException(socket + " exists and is not a socket; not replacing it");
            }
            if (answers(socket)) {
                throw new IOException("an agent is already listening on " + socket);
            }
            LOG.info("removing the stale socket {}", socket);
            Files.delete(socket);
        }
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
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
                SocketChannel client = server.accept();
                try {
                    workers.execute(() -> answer(client));
                } catch (RejectedExecutionException e) {
                    LOG.warn("too many requests at once; closing a connection unanswered");
                    closeQuietly(client);
                }
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

    private void answer(SocketChannel client) {
        try (client) {
            Caller caller = caller(client);
            long deadline = System.nanoTime() + readTimeout.toNanos();
            String response;
            try {
                String line = LineChannel.readLine(client, deadline, AgentJson.MAX_LINE_BYTES);
                if (line == null) {
                    return;
                }
                response = service.handle(caller, line);
            } catch (LineChannel.LineTooLongException e) {
                response = service.refuse(caller, "(not recorded: request too long)",
                        "bad request: longer than " + AgentJson.MAX_LINE_BYTES + " bytes");
            } catch (CharacterCodingException e) {
                response = service.refuse(caller, "(not recorded: not UTF-8)", "bad request: not UTF-8 text");
            } catch (SocketTimeoutException e) {
                service.refuse(caller, "(no complete request)", "no complete request line within "
                        + readTimeout.toMillis() + " ms; connection closed");
                return;
            }
            LineChannel.writeLine(client, response, System.nanoTime() + WRITE_TIMEOUT.toNanos());
        } catch (IOException e) {
            LOG.debug("a client connection ended early: {}", e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("internal error answering a client", e);
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
        workers.shutdown();
        try {
            if (!workers.awaitTermination(10, TimeUnit.SECONDS)) {
                workers.shutdownNow();
            }
        } catch (InterruptedException e) {
            workers.shutdownNow();
            Thread.currentThread().interrupt();
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
