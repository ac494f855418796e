package org.slurmautoresume.slurm.probe;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.slurm.model.Node;

/**
 * Whether a node's processes still run, asked of the node's own autoresume agent: the agent
 * greets every connection on its liveness port with one line. The connection is kept, and the
 * next probe sends {@link #ASK_AGAIN} on it for a fresh greeting, sparing both ends a TCP setup
 * and teardown per probe; one that ended, or an agent that greets and closes (older ones, or one
 * at its bound of kept connections), makes the probe connect anew as it always did. A node whose
 * processes are stopped, or whose kernel is wedged, often still completes the TCP handshake
 * (the kernel queues the connection) but nothing answers: a plain connect to slurmd cannot tell
 * that from a live node, and slurmd logs an error for every such connect.
 *
 * <p>Where no agent answers (none installed, the port filtered, something else listening), the
 * node is judged by {@code fallback}, so a site without agents loses nothing. With
 * {@code requireAnswerFirst} a silent agent counts only once that node's agent has greeted this
 * prober before: the in-step probe, which asks every second, never raises an alarm over a port
 * that never answered.
 *
 * <p>A port that accepts and stays silent, or leaves handshakes unanswered, is never evidence by
 * itself: where the port is unprivileged (several slurmd per host, or containers that let users
 * bind low ports) any user can hold it while the agent is down. Silence counts only when the
 * node's slurmd, asked in its own protocol ({@link SlurmdAnswerProbe}), is silent too; a slurmd
 * that answers makes the node reachable, and something else on the agent's port is logged once
 * per node. A greeting is plain text that whoever holds the port can send, so it is trusted only
 * where trusting it marks nothing: it makes the node reachable (a forged one can hide a fault
 * until Slurm's own SlurmdTimeout, no more), and {@code unhealthy} only has a supervisor read
 * Slurm's record sooner ({@link #reportsUnhealthy}); Slurm's state decides.
 */
public final class LivenessProber implements NodeProber, AutoCloseable {

    /** The agent's port on a node whose slurmd listens on slurmd's default port (privileged: no user can take it). */
    public static final int DEFAULT_PORT = 818;
    /**
     * The agent's fresh-check port (greeted after a round of its GPU checks run out of turn), far
     * enough from {@link #DEFAULT_PORT} that the per-node offsets of a host with many simulated
     * nodes never meet.
     */
    public static final int DEFAULT_CHECK_PORT = 918;
    /** What every greeting starts with. */
    public static final String GREETING = "autoresume-agent 1 ";

    private static final int SLURMD_DEFAULT_PORT = TcpNodeProber.DEFAULT_SLURMD_PORT;
    /**
     * What a prober sends on a connection its agent greeted to be greeted again: one byte, the
     * only input the agent reads. An agent that keeps no connections has closed it by then.
     */
    public static final byte ASK_AGAIN = '?';
    /** Probes that ask with a new connection each time after an agent closed a kept one at its first question. */
    static final int KEEP_NONE_PROBES = 60;
    /**
     * How long slurmd's handshake may take once the agent's port left one unanswered: on a live
     * network a handshake takes well under a millisecond, and only a lost packet (retried after
     * a second) takes longer, which a watch's next probe forgives.
     */
    static final Duration HANDSHAKE_WINDOW = Duration.ofMillis(250);

    private final Duration timeout;
    private final int basePort;
    private final boolean requireAnswerFirst;
    private final NodeProber fallback;
    /** The agents' fresh-check port (see {@link #DEFAULT_CHECK_PORT}); 0 when not asked. */
    private final int checkBasePort;

    private final Set<String> answered = ConcurrentHashMap.newKeySet();
    private final Set<String> saysUnhealthy = ConcurrentHashMap.newKeySet();
    /** Nodes whose agent greeted the last probe. */
    private final Set<String> greetedLast = ConcurrentHashMap.newKeySet();
    /** Nodes whose agent, which greeted before, and slurmd both refused the last probe. */
    private final Set<String> gone = ConcurrentHashMap.newKeySet();
    /** Nodes whose agent port was silent while their slurmd answered, already logged. */
    private final Set<String> squatWarned = ConcurrentHashMap.newKeySet();

    private final SlurmdAnswerProbe slurmdAnswer;
    /** The connection each node's agent greeted on and may answer again on, between probes. */
    private final Map<String, AgentConnection> held = new ConcurrentHashMap<>();
    /** Nodes whose agent closed a kept connection at its first question: probes left before one is kept again. */
    private final Map<String, Integer> keepNoneFor = new ConcurrentHashMap<>();

    private volatile boolean closed;

    public LivenessProber(Duration timeout, int basePort, boolean requireAnswerFirst, NodeProber fallback) {
        this(timeout, basePort, 0, requireAnswerFirst, fallback);
    }

    /** @param checkBasePort the agents' fresh-check port, for {@link #freshlyUnhealthy}; 0 for none */
    public LivenessProber(
            Duration timeout, int basePort, int checkBasePort, boolean requireAnswerFirst, NodeProber fallback) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.slurmdAnswer = new SlurmdAnswerProbe(timeout);
        if (checkBasePort < 0 || checkBasePort > 65535) {
            throw new IllegalArgumentException("not a port: " + checkBasePort);
        }
        this.checkBasePort = checkBasePort;
        if (basePort < 1 || basePort > 65535) {
            throw new IllegalArgumentException("not a port: " + basePort);
        }
        this.timeout = timeout;
        this.basePort = basePort;
        this.requireAnswerFirst = requireAnswerFirst;
        this.fallback = fallback;
    }

    /**
     * The liveness port of a node's agent: the base port, moved as far as the node's slurmd port
     * is from slurmd's default, so that several simulated nodes on one host (Slurm's
     * multiple-slurmd, the local cluster) get one port each while a real cluster uses one.
     */
    public static int port(int basePort, Node node) {
        return port(basePort, node.port().orElse(SLURMD_DEFAULT_PORT));
    }

    /** As {@link #port(int, Node)}, from the slurmd port; IllegalArgumentException when out of range. */
    public static int port(int basePort, int slurmdPort) {
        int port = basePort + slurmdPort - SLURMD_DEFAULT_PORT;
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("liveness port " + basePort + " with slurmd port " + slurmdPort
                    + " gives " + port + ", not a port");
        }
        return port;
    }

    @Override
    public Optional<String> unreachable(Node node) {
        gone.remove(node.name());
        greetedLast.remove(node.name());
        String host = node.address() == null || node.address().isBlank() ? node.name() : node.address();
        int port;
        try {
            port = port(basePort, node);
        } catch (IllegalArgumentException e) {
            return fallback.unreachable(node);
        }
        AgentConnection kept = held.remove(node.name());
        if (kept != null) {
            Optional<String> answer = askAgain(node, kept, host, port);
            if (answer != null) {
                return answer;
            }
        }
        return connectAndAsk(node, host, port);
    }

    /**
     * Sends the question on every kept connection of these nodes before any is probed, so that
     * each probe of the round finds its answer arrived and reads it at once, rather than asking
     * and then waiting: a probe costs two system calls instead of four (ask, a read that finds
     * nothing yet, a wait, the read). An answer left unread longer than the timeout (the round
     * stopped early) is not taken for a later probe's.
     */
    @Override
    public void roundStarts(List<Node> nodes) {
        for (Node node : nodes) {
            AgentConnection kept = held.get(node.name());
            if (kept != null) {
                try {
                    kept.askAgain();
                } catch (IOException e) {
                    // broken: the node's probe finds it so and connects anew
                }
            }
        }
    }

    /**
     * Asks the agent again on the connection it greeted this prober on. Its silence counts as a
     * new connection's would once the agent greeted (no one else can answer on a connection the
     * agent accepted), and slurmd decides with it as ever; null when the connection ended or
     * carried anything but the node's greeting (the agent restarted, dropped an idle connection,
     * or keeps none and closed it after greeting): a new connection then decides, as it always did.
     */
    private Optional<String> askAgain(Node node, AgentConnection kept, String host, int port) {
        if (kept.askedLongerAgoThan(timeout.toNanos())) {
            kept.close(); // asked ahead of a round that never came to it: the answer waiting there is old news
            return null;
        }
        long start = System.nanoTime();
        int millis = Math.toIntExact(timeout.toMillis());
        Future<SlurmdAnswerProbe.Answer> slurmd = null;
        try {
            kept.askAgain();
            int first;
            try {
                first = kept.read(early(start, millis));
            } catch (SocketTimeoutException late) {
                slurmd = slurmdAnswer.askAside(node, Duration.ofMillis(left(start, millis)));
                first = kept.read(left(start, millis));
            }
            Optional<String> line = first < 0 ? Optional.empty() : kept.line(first, left(start, millis));
            if (line.isPresent() && isGreeting(node, line.get()) && kept.drained()) {
                greeted(node, line.get());
                kept.answerRead();
                kept.markAnsweredAgain();
                keep(node, kept);
                return Optional.empty();
            }
        } catch (SocketTimeoutException e) {
            kept.close();
            return silentOnKeptConnection(node, host, port, answer(slurmd));
        } catch (IOException e) {
            // reset or broken: a new connection decides
        }
        kept.close();
        if (!kept.answeredAgain()) {
            // Greeted, then closed at the first question: an agent that keeps no connections, or
            // none more from here (at its bound). Asked with a connection each time for a while.
            keepNoneFor.put(node.name(), KEEP_NONE_PROBES);
        }
        return null;
    }

    /** Today's probe: a new connection, its greeting, and the connection kept where the agent may answer again. */
    private Optional<String> connectAndAsk(Node node, String host, int port) {
        long start = System.nanoTime();
        int millis = Math.toIntExact(timeout.toMillis());
        AgentConnection connection = new AgentConnection();
        boolean kept = false;
        try {
            try {
                connection.connect(new InetSocketAddress(host, port), millis);
            } catch (IOException e) {
                if (e instanceof SocketTimeoutException && requireAnswerFirst && answered.contains(node.name())) {
                    return unansweredHandshake(node, host, port);
                }
                Optional<String> slurmd = fallback.unreachable(node); // refused, filtered or no route: judge by slurmd
                if (slurmd.isPresent()
                        && e instanceof ConnectException
                        && answered.contains(node.name())
                        && fallback.refused(node)) {
                    gone.add(node.name());
                    return Optional.of("the autoresume agent at " + host + ":" + port + ", which answered before,"
                            + " refused the connection, and so did slurmd (" + slurmd.get() + ")");
                }
                return slurmd;
            }
            boolean silenceCounts = !requireAnswerFirst || answered.contains(node.name());
            Future<SlurmdAnswerProbe.Answer> slurmd = null;
            int first;
            try {
                try {
                    first = connection.read(silenceCounts ? early(start, millis) : left(start, millis));
                } catch (SocketTimeoutException late) {
                    if (!silenceCounts) {
                        throw late;
                    }
                    // A running agent greets within a millisecond of the handshake. Its silence counts only
                    // with slurmd's, so slurmd is asked while the greeting is still awaited, not after.
                    slurmd = slurmdAnswer.askAside(node, Duration.ofMillis(left(start, millis)));
                    first = connection.read(left(start, millis));
                }
            } catch (SocketTimeoutException e) {
                return silenceCounts ? silentAgent(node, host, port, answer(slurmd)) : fallback.unreachable(node);
            }
            Optional<String> line = first < 0 ? Optional.empty() : connection.line(first, left(start, millis));
            if (line.isPresent() && isGreeting(node, line.get())) {
                greeted(node, line.get());
                kept = connection.drained() && mayKeep(node) && keep(node, connection);
                return Optional.empty();
            }
            return fallback.unreachable(node); // something else listens there, or another node's agent
        } catch (IOException e) {
            return fallback.unreachable(node);
        } finally {
            if (!kept) {
                connection.close();
            }
        }
    }

    private static boolean isGreeting(Node node, String line) {
        return line.startsWith(GREETING + node.name() + " ");
    }

    /** Records the node's own agent's greeting. */
    private void greeted(Node node, String line) {
        answered.add(node.name());
        greetedLast.add(node.name());
        squatWarned.remove(node.name()); // the agent is back: a later squatter is worth a word again
        if (line.equals(GREETING + node.name() + " unhealthy")) {
            saysUnhealthy.add(node.name());
        } else {
            saysUnhealthy.remove(node.name());
        }
    }

    /** Whether a connection to the node's agent may be kept now: not while one that closed at its first question is recent. */
    private boolean mayKeep(Node node) {
        return keepNoneFor.computeIfPresent(node.name(), (name, left) -> left <= 1 ? null : left - 1) == null;
    }

    /** Keeps the connection for the node's next probe; false when another one (a probe beside this one) is kept already. */
    private boolean keep(Node node, AgentConnection connection) {
        if (closed) {
            return false;
        }
        return held.putIfAbsent(node.name(), connection) == null;
    }

    /**
     * The agent, which greeted on this connection, did not answer a question on it. Slurmd decides
     * as for a new connection's silence, but nothing else can hold a connection the agent accepted:
     * with slurmd answering, the agent alone is stuck and the node runs.
     */
    private Optional<String> silentOnKeptConnection(Node node, String host, int port, SlurmdAnswerProbe.Answer slurmd) {
        String agentSilent = "the autoresume agent at " + host + ":" + port + " did not answer on its open connection"
                + " within " + timeout.toMillis() + " ms";
        String slurmdAt = "slurmd at " + host + ":" + node.port().orElse(TcpNodeProber.DEFAULT_SLURMD_PORT);
        switch (slurmd) {
            case ANSWERS:
                if (squatWarned.add(node.name())) {
                    LoggerFactory.getLogger(LivenessProber.class)
                            .warn(
                                    "Node {}'s autoresume agent at {}:{} stopped answering on its open connection while"
                                            + " its slurmd answers; the node is judged reachable",
                                    node.name(),
                                    host,
                                    port);
                }
                return Optional.empty();
            case SILENT:
                return Optional.of(agentSilent + ", nor did " + slurmdAt + " react to a message: the node's"
                        + " processes are stopped or its kernel is wedged");
            default:
                return Optional.of(agentSilent + ", nor did " + slurmdAt + " accept a connection: the node is cut off"
                        + " from the network, or gone");
        }
    }

    /**
     * Closes the connections kept to the nodes' agents (each agent also drops one left idle);
     * probing after this asks with a new connection each time.
     */
    @Override
    public void close() {
        closed = true;
        for (String node : List.copyOf(held.keySet())) {
            AgentConnection connection = held.remove(node);
            if (connection != null) {
                connection.close();
            }
        }
    }

    /**
     * The agent's port accepted and said nothing. Whoever can bind that port can do the same, so
     * the node's slurmd decides: silent too, the node's processes are stopped or its kernel is
     * wedged; answering, the node runs and something other than its agent holds the port; not
     * accepting at all, slurmd's usual probe judges.
     */
    private Optional<String> silentAgent(Node node, String host, int port, SlurmdAnswerProbe.Answer slurmd) {
        if (slurmd == SlurmdAnswerProbe.Answer.ANSWERS) {
            warnOfSquatter(node, host, port, "accepts connections but does not greet");
            return Optional.empty();
        }
        if (slurmd == SlurmdAnswerProbe.Answer.NOT_ACCEPTED) {
            return fallback.unreachable(node);
        }
        return Optional.of("the autoresume agent at " + host + ":" + port + " accepted a connection but did"
                + " not answer within " + timeout.toMillis() + " ms, nor did slurmd at " + host + ":"
                + node.port().orElse(TcpNodeProber.DEFAULT_SLURMD_PORT) + " react to a message: the node's"
                + " processes are stopped or its kernel is wedged");
    }

    /**
     * The agent's port, which greeted this prober before, left the handshake itself unanswered.
     * A node cut off from the network does that, and so does a port whose queue of unaccepted
     * connections is full, which whoever holds the port can arrange by listening and never
     * accepting. So slurmd decides here too, its handshake given {@link #HANDSHAKE_WINDOW} (a node
     * that is cut off costs that, not another timeout): answering, the node runs; accepting and
     * silent, its processes are stopped; not accepting, the node is cut off or gone.
     */
    private Optional<String> unansweredHandshake(Node node, String host, int port) {
        String agentSilent = "the autoresume agent at " + host + ":" + port + ", which answered before, did not"
                + " complete a connection within " + timeout.toMillis() + " ms";
        String slurmdAt = "slurmd at " + host + ":" + node.port().orElse(TcpNodeProber.DEFAULT_SLURMD_PORT);
        switch (slurmdAnswer.ask(node, HANDSHAKE_WINDOW)) {
            case ANSWERS:
                warnOfSquatter(node, host, port, "does not complete connections");
                return Optional.empty();
            case SILENT:
                return Optional.of(agentSilent + ", and " + slurmdAt + " accepted one but did not react to a message:"
                        + " the node's processes are stopped or its kernel is wedged");
            default:
                return Optional.of(agentSilent + ", nor did " + slurmdAt + " within " + HANDSHAKE_WINDOW.toMillis()
                        + " ms: the node is cut off from the network, or gone");
        }
    }

    /** Says once per node, until its agent greets again, that something other than its agent holds its port. */
    private void warnOfSquatter(Node node, String host, int port, String what) {
        if (squatWarned.add(node.name())) {
            LoggerFactory.getLogger(LivenessProber.class)
                    .warn(
                            "Port {} on {} {} as node {}'s autoresume agent"
                                    + " would, while its slurmd answers: something else holds the agent's port (the agent is down,"
                                    + " or another program took the port); the node is judged reachable",
                            port,
                            host,
                            what,
                            node.name());
        }
    }

    /** Whether the nodes' agents are asked for fresh checks ({@link #freshlyUnhealthy}). */
    public boolean asksFreshChecks() {
        return checkBasePort != 0;
    }

    /**
     * What the node's agent says after a round of its checks run out of turn, asked on its
     * fresh-check port: true for "unhealthy" (it found a fault and marked the node), false for
     * "ok"; empty when no agent answers there within {@code within} (none listens, no GPU
     * checks, the node is gone). Nothing is sent: connecting is the question.
     */
    public Optional<Boolean> freshlyUnhealthy(Node node, Duration within) {
        if (checkBasePort == 0) {
            return Optional.empty();
        }
        String host = node.address() == null || node.address().isBlank() ? node.name() : node.address();
        int millis = Math.toIntExact(within.toMillis());
        try (AgentConnection connection = new AgentConnection()) {
            long start = System.nanoTime();
            connection.connect(
                    new InetSocketAddress(host, port(checkBasePort, node)),
                    Math.min(millis, Math.toIntExact(timeout.toMillis())));
            int first = connection.read(left(start, millis));
            Optional<String> line = first < 0 ? Optional.empty() : connection.line(first, left(start, millis));
            if (line.isPresent() && line.get().equals(GREETING + node.name() + " unhealthy")) {
                return Optional.of(true);
            }
            return line.isPresent() && line.get().equals(GREETING + node.name() + " ok")
                    ? Optional.of(false)
                    : Optional.empty();
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Whether the node's agent has greeted this prober. */
    public boolean hasAgent(Node node) {
        return answered.contains(node.name());
    }

    @Override
    public boolean speaksForItsNode(Node node) {
        return greetedLast.contains(node.name());
    }

    @Override
    public boolean reportsUnhealthy(Node node) {
        return saysUnhealthy.contains(node.name());
    }

    @Override
    public boolean refused(Node node) {
        return gone.contains(node.name());
    }

    /** The node's agent, which greeted this prober before, and its slurmd both refused the last probe. */
    @Override
    public boolean gone(Node node) {
        return gone.contains(node.name());
    }

    /** How long a greeting is awaited before slurmd is asked beside it: a quarter of the time left, at least 1 ms. */
    private static int early(long start, int millis) {
        return Math.max(1, Math.min(millis / 4, left(start, millis)));
    }

    /** The time left of {@code millis} since {@code start}, at least 1 ms. */
    private static int left(long start, int millis) {
        return Math.max(1, millis - (int) ((System.nanoTime() - start) / 1_000_000));
    }

    /** What slurmd said to a probe asked aside, which ends within its own wait. */
    private static SlurmdAnswerProbe.Answer answer(Future<SlurmdAnswerProbe.Answer> slurmd) {
        try {
            return slurmd.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return SlurmdAnswerProbe.Answer.NOT_ACCEPTED;
        } catch (ExecutionException e) {
            return SlurmdAnswerProbe.Answer.NOT_ACCEPTED;
        }
    }
}
