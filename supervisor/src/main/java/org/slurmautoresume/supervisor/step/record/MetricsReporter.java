package org.slurmautoresume.supervisor.step.record;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.protocol.AgentException;
import org.slurmautoresume.agent.protocol.AgentReport;
import org.slurmautoresume.agent.protocol.AgentRequest;
import org.slurmautoresume.agent.protocol.AgentRequestException;
import org.slurmautoresume.agent.protocol.AgentUnavailableException;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.supervisor.policy.RestartLevel;

/**
 * Tells the node's agent what the job's timeline records, for the agent's Prometheus metrics:
 * the events that a counter or histogram counts, sent in the background one after another so
 * the step never waits for the agent. With no agent running on the node (no socket, or nothing
 * listening on it) nothing is sent and nothing said: the once-per-job recovery-paths line
 * already told the user; an agent that refuses or does not answer is said once on the step's stderr.
 * Metrics are for the operator, never a reason to hold up or stop a step.
 */
public final class MetricsReporter implements AutoCloseable {

    /** An agent answers a report after one {@code scontrol show job}; more than this means it is stuck. */
    static final Duration REPORT_TIMEOUT = Duration.ofSeconds(5);
    /** How long the supervisor's end waits for reports still queued (the final "succeeded" above all). */
    static final Duration DRAIN = Duration.ofSeconds(2);

    private static final int QUEUE = 64;

    private final Path socket;
    private final AgentClient agent;
    private final String jobId;
    private final Consumer<String> say;
    private final ExecutorService sender;
    /** How the next relaunch restarts the step, from the last decision (retry or recover). */
    private volatile AgentReport.Level nextLevel = AgentReport.Level.RETRY;

    private volatile boolean complained;

    /** The events the goodput is worked out from, as this supervisor recorded them. */
    private final List<EventHistory.Event> goodputEvents = new ArrayList<>();
    /** The settled goodput already reported: each report carries what settled since. */
    private Goodput goodputReported = Goodput.NONE;
    /** The events {@link Goodput} reads; the others change nothing of it. */
    private static final Set<EventHistory.Kind> GOODPUT_KINDS = EnumSet.of(
            EventHistory.Kind.LAUNCH,
            EventHistory.Kind.PROGRESS,
            EventHistory.Kind.DETECTION,
            EventHistory.Kind.ATTEMPT_ENDED,
            EventHistory.Kind.GIVE_UP,
            EventHistory.Kind.REQUEUE,
            EventHistory.Kind.REPEATED_FAILURE);

    public MetricsReporter(Path socket, String jobId, Consumer<String> say) {
        this.socket = socket;
        this.agent = new AgentClient(socket, REPORT_TIMEOUT);
        this.jobId = jobId;
        this.say = say;
        this.sender = new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(QUEUE),
                task -> {
                    Thread thread = new Thread(task, "metrics-report");
                    thread.setDaemon(true);
                    return thread;
                },
                new ThreadPoolExecutor.DiscardPolicy());
    }

    /** Sends what a timeline event counts for, if anything; {@code details} as given to the timeline. */
    void onEvent(EventHistory.Kind kind, int attempt, OptionalLong latencyMs, Map<String, String> details) {
        Optional<AgentReport> report;
        try {
            report = reportFor(kind, attempt, latencyMs, details);
        } catch (AgentRequestException e) {
            complainOnce("a report the agent would refuse was not sent: " + e.getMessage());
            return;
        }
        report.ifPresent(this::send);
        try {
            goodputAfter(kind, attempt, Instant.now(), latencyMs, details).ifPresent(this::send);
        } catch (AgentRequestException e) {
            complainOnce("a goodput report the agent would refuse was not sent: " + e.getMessage());
        }
    }

    /**
     * The step's time that this event settled, as a goodput report; empty when it settled none.
     * Settled time never changes afterwards ({@link Goodput#of}), so each report carries only what
     * is new and the agent's counters add up to the job's whole goodput.
     */
    synchronized Optional<AgentReport> goodputAfter(
            EventHistory.Kind kind, int attempt, Instant at, OptionalLong latencyMs, Map<String, String> details) {
        if (!GOODPUT_KINDS.contains(kind)) {
            return Optional.empty();
        }
        goodputEvents.add(new EventHistory.Event(at, kind.word(), jobId, attempt, null, latencyMs, details));
        Goodput settled = Goodput.of(goodputEvents, at, true);
        Goodput fresh = settled.since(goodputReported);
        AgentReport.Time time = new AgentReport.Time(
                fresh.productive().toMillis(),
                fresh.detection().toMillis(),
                fresh.recovery().toMillis(),
                fresh.restart().toMillis(),
                fresh.redone().toMillis(),
                fresh.unattributed().toMillis());
        if (time.isZero()) {
            return Optional.empty();
        }
        goodputReported = settled;
        return Optional.of(AgentReport.goodput(Math.max(1, attempt), time));
    }

    Optional<AgentReport> reportFor(
            EventHistory.Kind kind, int attempt, OptionalLong latencyMs, Map<String, String> details) {
        Long latency = latencyMs.isPresent() ? latencyMs.getAsLong() : null;
        switch (kind) {
            case DECISION: {
                // RERUN_IN_PLACE and REPLACE_NODES_AND_RERUN lead to a relaunch; the others do not.
                Optional<RestartLevel> level = RestartLevel.named(details.get("level"));
                nextLevel = level.equals(Optional.of(RestartLevel.REPLACE_NODES_AND_RERUN))
                        ? AgentReport.Level.RECOVER
                        : AgentReport.Level.RETRY;
                boolean reruns = level.map(RestartLevel::isStepRestart).orElse(false);
                return reruns && restartsLeft(details) <= 1
                        ? Optional.of(AgentReport.of(AgentReport.Event.BUDGET_LOW, attempt, null))
                        : Optional.empty();
            }
            case LAUNCH:
                return Optional.of(
                        attempt <= 1
                                ? AgentReport.of(AgentReport.Event.LAUNCH, 1, null)
                                : AgentReport.relaunch(attempt, latency == null ? 0 : latency, nextLevel));
            case DETECTION: {
                String rule = details.get("rule");
                return Optional.of(AgentReport.detection(
                        attempt,
                        latency,
                        details.getOrDefault("source", "unknown"),
                        rule,
                        rule == null ? null : details.get("state")));
            }
            case REPLACEMENT: {
                String faulty = details.getOrDefault("faultyNodes", "");
                long count = faulty.isBlank() ? 1 : Hostlist.count(faulty);
                return Optional.of(AgentReport.replacement(
                        attempt, latency == null ? 0 : latency, (int) Math.min(count, AgentRequest.MAX_NODES)));
            }
            case REQUEUE:
                return Optional.of(AgentReport.of(AgentReport.Event.REQUEUE, attempt, null));
            case GIVE_UP:
                return Optional.of(AgentReport.of(AgentReport.Event.GIVE_UP, attempt, null));
            case SUCCEEDED:
                return Optional.of(AgentReport.of(AgentReport.Event.SUCCEEDED, attempt, null));
            default:
                return Optional.empty();
        }
    }

    /** The decision's step restarts left after it; none recorded: plenty. */
    private static int restartsLeft(Map<String, String> details) {
        try {
            return Integer.parseInt(details.getOrDefault("stepRestartsLeft", Integer.toString(Integer.MAX_VALUE)));
        } catch (NumberFormatException e) {
            return Integer.MAX_VALUE;
        }
    }

    private void send(AgentReport report) {
        if (!Files.exists(socket)) {
            return; // no agent on this node: nothing to report to, and nothing worth saying
        }
        String line = requestLine(jobId, report);
        try {
            sender.execute(() -> {
                try {
                    String response = agent.call(line);
                    if (!response.startsWith("{\"ok\":true")) {
                        complainOnce("the agent did not count a report for the metrics: "
                                + (response.length() > 300 ? response.substring(0, 300) + "..." : response));
                    }
                } catch (AgentUnavailableException e) {
                    // No agent runs: the once-per-job recovery-paths line says so; metrics are not worth a second word.
                } catch (AgentException e) {
                    complainOnce("metrics not reported (" + e.getMessage() + ")");
                }
            });
        } catch (RejectedExecutionException e) {
            // closed already: the supervisor is ending
        }
    }

    /**
     * The request line, written by hand as the timeline's lines are: a supervised srun should not
     * load Jackson (a few hundred classes) to say "launch". The agent reads it strictly.
     */
    static String requestLine(String jobId, AgentReport report) {
        StringBuilder line = new StringBuilder(160).append("{\"op\":\"report\",\"jobId\":");
        EventHistory.string(line, jobId);
        line.append(",\"report\":{");
        boolean first = true;
        for (Map.Entry<String, Object> field : report.wireForm().entrySet()) {
            if (!first) {
                line.append(',');
            }
            first = false;
            EventHistory.string(line, field.getKey());
            line.append(':');
            if (field.getValue() instanceof Number number) {
                line.append(number);
            } else {
                EventHistory.string(line, field.getValue().toString());
            }
        }
        return line.append("}}").toString();
    }

    private void complainOnce(String what) {
        if (!complained) {
            complained = true;
            say.accept(what);
        }
    }

    /** Waits up to {@link #DRAIN} for the reports still queued, then lets the rest go. */
    @Override
    public void close() {
        sender.shutdown();
        try {
            sender.awaitTermination(DRAIN.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
