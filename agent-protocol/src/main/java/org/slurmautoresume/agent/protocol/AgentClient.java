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
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How a supervisor asks the agent: one connection per request, one line each way, with a
 * deadline. Failures to reach the agent say what is wrong and how to start it.
 */
public final class AgentClient {

    public static final Path DEFAULT_SOCKET = Path.of("/run/autoresume/agent.sock");
    /** Long enough for the agent to read Slurm and probe a few nodes (2 s each at worst). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    /**
     * Made when the first answer is read, not when the class loads: every supervised srun loads
     * this class (for {@link #DEFAULT_SOCKET}), and building the reader starts Jackson's
     * databind and its introspection of the response records, about 60 ms of a start-up that
     * most steps never need.
     */
    private static final class Responses {
        static final ObjectReader READER = AgentJson.MAPPER.readerFor(AgentResponse.class)
                .without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    private final Path socket;
    private final Duration timeout;

    public AgentClient(Path socket, Duration timeout) {
        this.socket = Objects.requireNonNull(socket);
        this.timeout = Objects.requireNonNull(timeout);
    }

    public AgentResponse send(AgentRequest request) {
        String line = call(AgentJson.line(request.wireForm()));
        try {
            return Responses.READER.readValue(line);
        } catch (IOException e) {
            throw new AgentException("the agent on " + socket + " answered something unreadable: " + e.getMessage(), e);
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
            throw new AgentException("the agent on " + socket + " did not answer within " + timeout.toSeconds() + " s", e);
        } catch (IOException e) {
            throw new AgentException("talking to the agent on " + socket + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Why no agent can be talked to on the socket (none there, nothing listening on it), or empty
     * when one accepts a connection. Nothing is sent: the agent sees a client that left at once.
     * A local socket connects at once or not at all, so no timeout applies.
     */
    public static java.util.Optional<String> unreachable(Path socket) {
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
            String hint = " (start it as root: systemctl start autoresume-agent, or autoresume agent)";
            if (!Files.exists(socket)) {
                throw new AgentUnavailableException("the autoresume agent is not running: no socket at " + socket + hint, e);
            }
            if (e instanceof ConnectException || String.valueOf(e.getMessage()).contains("refused")) {
                throw new AgentUnavailableException("the autoresume agent is not running: nothing listens on " + socket
                        + hint, e);
            }
            throw new AgentException("cannot connect to the autoresume agent on " + socket + ": " + e.getMessage(), e);
        }
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
