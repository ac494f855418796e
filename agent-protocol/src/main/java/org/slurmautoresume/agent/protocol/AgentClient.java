package org.slurmautoresume.agent.protocol;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a supervisor asks the agent: one connection per request, one line each way, with a
 * deadline. Failures to reach the agent say what is wrong and how to start it.
 */
public final class AgentClient {

    public static final Path DEFAULT_SOCKET = Path.of("/run/autoresume/agent.sock");
    /** Long enough for the agent to read Slurm and probe a few nodes (2 s each at worst). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
    /** How the agent's refusals for a full queue begin (a supervisor tries those again later). */
    public static final String BUSY = "busy: ";
    /** What an operator does about an agent that is not running, after each such message. */
    private static final String START_HINT =
            " (start it as root: systemctl start autoresume-agent, or autoresume agent)";

    /**
     * Made when the first answer is read, not when the class loads: every supervised srun loads
     * this class (for {@link #DEFAULT_SOCKET}), and building the reader starts Jackson's
     * databind and its introspection of the response records, about 60 ms of a start-up that
     * most steps never need.
     */
    private static final class Responses {
        static final ObjectReader READER = AgentJson.MAPPER
                .readerFor(AgentResponse.class)
                .without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    private final Path socket;
    private final Duration timeout;
    /** Empty: a request fails at its first failure to reach the agent (tools, metrics). */
    private final Optional<AgentOutage> outage;

    public AgentClient(Path socket, Duration timeout) {
        this(socket, timeout, Optional.empty());
    }

    private AgentClient(Path socket, Duration timeout, Optional<AgentOutage> outage) {
        this.socket = Objects.requireNonNull(socket);
        this.timeout = Objects.requireNonNull(timeout);
        this.outage = outage;
    }

    /**
     * This client, but {@link #send} rides out an agent that is down or restarting (see
     * {@link AgentOutage}); {@link #call} still tries once.
     */
    public AgentClient ridingOutages(AgentOutage outage) {
        return new AgentClient(socket, timeout, Optional.of(outage));
    }

    public AgentResponse send(AgentRequest request) {
        if (outage.isEmpty()) {
            return sendOnce(request);
        }
        AgentOutage riding = outage.get();
        long firstTry = System.nanoTime();
        for (int tries = 0; ; tries++) {
            String why;
            try {
                AgentResponse response = sendOnce(request);
                if (!busy(response)) {
                    riding.answered();
                    return response;
                }
                why = response.message();
            } catch (AgentUnreadableException e) {
                throw e;
            } catch (AgentException e) {
                if (!riding.agentWasHere()) {
                    throw e; // no agent installed here: fail open at once, as without riding
                }
                why = e.getMessage();
                if (!riding.failed(firstTry, request, why)) {
                    throw new AgentException(riding.gaveUp(request, why), e);
                }
                pause(riding, tries);
                continue;
            }
            // Refused for now (its queue for this user is full): an answer, but not one to act on.
            if (!riding.failed(firstTry, request, why)) {
                throw new AgentException(riding.gaveUp(request, why));
            }
            pause(riding, tries);
        }
    }

    private static boolean busy(AgentResponse response) {
        return !response.ok()
                && response.message() != null
                && response.message().startsWith(BUSY);
    }

    private static void pause(AgentOutage riding, int tries) {
        try {
            Thread.sleep(riding.pause(tries).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AgentException("interrupted while waiting for the agent to come back", e);
        }
    }

    private AgentResponse sendOnce(AgentRequest request) {
        String line = call(AgentJson.line(request.wireForm()));
        try {
            return Responses.READER.readValue(line);
        } catch (IOException e) {
            throw new AgentUnreadableException(
                    "the agent on " + socket + " answered something unreadable: " + e.getMessage(), e);
        }
    }

    /** An answer came but could not be read: the agent is there, so trying again would not help. */
    private static final class AgentUnreadableException extends AgentException {
        private static final long serialVersionUID = 1L;

        AgentUnreadableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Sends one raw request line and returns the raw response line (for tests and {@code agent-call}). */
    public String call(String requestLine) {
        if (requestLine.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("a request is one line");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        try (SocketChannel channel = connect()) {
            IOException unsent = null;
            try {
                LineChannel.writeLine(channel, requestLine, deadline);
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (IOException e) {
                // An agent that refuses a connection (too many from this user) answers and closes
                // at once, maybe before the request is written: its answer is still there to read.
                unsent = e;
            }
            String response;
            try {
                response = LineChannel.readLine(channel, deadline, AgentJson.MAX_LINE_BYTES * 16);
            } catch (IOException e) {
                throw unsent != null ? unsent : e;
            }
            if (response == null && unsent != null) {
                throw unsent;
            }
            if (response == null) {
                throw new AgentException("the agent on " + socket + " closed the connection without an answer"
                        + " (see its log and its audit log)");
            }
            return response;
        } catch (SocketTimeoutException e) {
            throw new AgentException(
                    "the agent on " + socket + " did not answer within " + timeout.toSeconds() + " s", e);
        } catch (IOException e) {
            throw new AgentException("talking to the agent on " + socket + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Why no agent can be talked to on the socket (none there, nothing listening on it), or empty
     * when one accepts a connection. Nothing is sent: the agent sees a client that left at once.
     * A local socket connects at once or not at all, so no timeout applies. Where there is no
     * socket file no socket is opened: Java's first local socket costs about 20 ms of CPU (a secure
     * random for its temporary names, a search of the class path for a selector provider), which
     * every supervised srun on a node without an agent paid to learn what a file test tells.
     */
    public static java.util.Optional<String> unreachable(Path socket) {
        if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            return java.util.Optional.of(notRunning(socket));
        }
        try (SocketChannel channel = new AgentClient(socket, DEFAULT_TIMEOUT).connect()) {
            return java.util.Optional.empty();
        } catch (AgentException e) {
            return java.util.Optional.of(e.getMessage());
        } catch (IOException e) {
            return java.util.Optional.empty(); // it connected; closing is not the agent's answer
        }
    }

    private SocketChannel connect() {
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(socket));
            return channel;
        } catch (IOException e) {
            closeQuietly(channel);
            if (!Files.exists(socket)) {
                throw new AgentUnavailableException(notRunning(socket), e);
            }
            if (e instanceof ConnectException || String.valueOf(e.getMessage()).contains("refused")) {
                throw new AgentUnavailableException(
                        "the autoresume agent is not running: nothing listens on " + socket + START_HINT, e);
            }
            throw new AgentException("cannot connect to the autoresume agent on " + socket + ": " + e.getMessage(), e);
        }
    }

    private static String notRunning(Path socket) {
        return "the autoresume agent is not running: no socket at " + socket + START_HINT;
    }

    private static void closeQuietly(SocketChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing more to do
            }
        }
    }
}
