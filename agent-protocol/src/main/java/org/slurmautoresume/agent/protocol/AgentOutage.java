package org.slurmautoresume.agent.protocol;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * How a supervisor rides out its agent being down or restarting ({@code systemctl restart}
 * removes the socket, the new agent binds it again a second or two later): requests on the
 * recovery path are tried again, with jittered back-off, for up to {@link #bound()} from the
 * first failure of each request, and the job's output hears one line when an outage starts to
 * matter, one when the agent answers again, and one per request given up.
 *
 * <p>A node with no agent installed must not make every job wait the bound: when the socket was
 * absent when the supervisor started and is still absent, a request fails at once. Once the
 * socket has been seen, its absence means an agent between stop and start.
 *
 * <p>One instance per supervisor, shared by its threads: an outage is the agent's, not one
 * request's, so it is said once however many requests wait on it.
 */
public final class AgentOutage {

    /** How long recovery waits for an agent that went away, unless AUTORESUME_AGENT_OUTAGE says. */
    public static final Duration DEFAULT_BOUND = Duration.ofSeconds(150);
    /** A restart that is over within this is not worth a line in the job's output. */
    static final Duration SAY_AFTER = Duration.ofSeconds(3);

    private static final Duration FIRST_PAUSE = Duration.ofMillis(250);
    private static final Duration LONGEST_PAUSE = Duration.ofSeconds(5);

    private final Path socket;
    private final Duration bound;
    private final Duration firstPause;
    private final Duration longestPause;
    private final Duration sayAfter;
    private final Consumer<String> say;
    private boolean socketSeen;
    /** System.nanoTime() of the first failure of the outage under way; 0 when the agent answers. */
    private long outageSince;

    private boolean outageSaid;

    public AgentOutage(Path socket, Duration bound, Consumer<String> say) {
        this(socket, bound, FIRST_PAUSE, LONGEST_PAUSE, SAY_AFTER, say);
    }

    AgentOutage(
            Path socket,
            Duration bound,
            Duration firstPause,
            Duration longestPause,
            Duration sayAfter,
            Consumer<String> say) {
        this.socket = Objects.requireNonNull(socket);
        this.bound = Objects.requireNonNull(bound);
        if (bound.isNegative()) {
            throw new IllegalArgumentException("an outage bound cannot be negative: " + bound);
        }
        this.firstPause = firstPause;
        this.longestPause = longestPause;
        this.sayAfter = sayAfter;
        this.say = Objects.requireNonNull(say);
        this.socketSeen = Files.exists(socket);
    }

    public Duration bound() {
        return bound;
    }

    /** Whether a failure to reach the agent is worth waiting out: an agent was here and may come back. */
    synchronized boolean agentWasHere() {
        socketSeen |= Files.exists(socket);
        return socketSeen;
    }

    /**
     * A failure of a request first tried at {@code firstTry}; says the outage once it has lasted.
     * Returns whether to try again: the bound runs from the outage's start, not each request's,
     * so requests made one after another in a long outage do not each wait the whole bound.
     */
    synchronized boolean failed(long firstTry, AgentRequest request, String why) {
        long now = System.nanoTime();
        if (outageSince == 0) {
            outageSince = Math.min(firstTry, now);
        }
        if (now - outageSince >= bound.toNanos()) {
            return false;
        }
        if (!outageSaid && now - outageSince >= sayAfter.toNanos()) {
            outageSaid = true;
            say.accept("the agent on " + socket + " has been unreachable for " + seconds(now - outageSince)
                    + " s (" + why + "); still trying (" + what(request) + ") for up to " + bound.toSeconds()
                    + " s: it may be restarting");
        }
        return true;
    }

    synchronized void answered() {
        if (outageSaid) {
            say.accept("the agent on " + socket + " answers again after " + seconds(System.nanoTime() - outageSince)
                    + " s");
        }
        outageSince = 0;
        outageSaid = false;
    }

    /** Says what the job loses by this request not being answered, and returns it for the exception. */
    synchronized String gaveUp(AgentRequest request, String why) {
        String message = "gave up on the agent on " + socket + ", unreachable for "
                + seconds(System.nanoTime() - outageSince) + " s (" + why + "): " + lost(request);
        say.accept(message);
        return message;
    }

    /** The pause before try {@code tries + 1}: doubling, capped, and jittered so supervisors spread out. */
    Duration pause(int tries) {
        long base = Math.min(longestPause.toMillis(), firstPause.toMillis() << Math.min(tries, 16));
        return Duration.ofMillis(base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1));
    }

    private static String what(AgentRequest request) {
        return switch (request.op()) {
            case WATCH -> "to record the job's nodes";
            case DIAGNOSE -> "to diagnose " + nodes(request);
            case MARK -> "to mark " + nodes(request) + " " + request.state().word();
            case RESUME -> "to return " + nodes(request) + " to service";
            case REBOOT -> "to reboot " + nodes(request);
            case REPLACE -> "to replace " + nodes(request);
            case REPORT -> "to report for the metrics";
            case EXPEDITE -> "to start the requeued job at once";
        };
    }

    /** Exactly what is no longer done because this request was not answered. */
    static String lost(AgentRequest request) {
        return switch (request.op()) {
            case WATCH ->
                "the job's nodes are not recorded with the agent, so a node the job loses before the agent"
                        + " marks it can no longer be marked for this job";
            case DIAGNOSE ->
                "no diagnosis of " + nodes(request) + " by the agent: the step's failure is taken for"
                        + " the application's";
            case MARK ->
                nodes(request) + " not marked " + request.state().word() + " with reason "
                        + request.action().reason() + ": only Slurm's own DOWN (after SlurmdTimeout) takes them out of"
                        + " service, and the step is not re-run without them by this request";
            case RESUME ->
                nodes(request) + " not returned to service: an administrator resumes them"
                        + " (scontrol update nodename=" + String.join(",", request.nodes()) + " state=resume)";
            case REBOOT -> nodes(request) + " not rebooted by the agent";
            case REPLACE -> "the site's replace command not run for " + nodes(request);
            case REPORT -> "a metrics report not counted";
            case EXPEDITE -> "the requeued job waits out Slurm's requeue delay (about 2 minutes by default)";
        };
    }

    private static String nodes(AgentRequest request) {
        return String.join(",", request.nodes());
    }

    private static long seconds(long nanos) {
        return Math.max(0, Duration.ofNanos(nanos).toSeconds());
    }
}
