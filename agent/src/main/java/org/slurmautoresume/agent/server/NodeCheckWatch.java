package org.slurmautoresume.agent.server;

import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.nodeops.health.CheckResult;
import org.slurmautoresume.nodeops.health.HealthAction;
import org.slurmautoresume.nodeops.health.HealthCheck;
import org.slurmautoresume.nodeops.health.HealthContext;
import org.slurmautoresume.slurm.client.NodeMark;

/**
 * The agent's own checks of its node at an interval, one watch per {@link Kind}: the GPU checks
 * ({@code --gpu-check-every}: nvidia-smi's GPU count, uncorrected ECC, pending retirement, row
 * remapping, and DCGM's health watches, the findings that come without an Xid in the kernel log or
 * before a job's task dies of them) and the slurmd check ({@code --slurmd-check-every}: the node's
 * slurmd answers a real request, which a stopped one does not though its port accepts). A fault that
 * needs a reboot or a replacement marks the node {@code fail} with that action and the finding as
 * evidence, whether or not a job runs there, once a second run {@code confirmAfter} later finds
 * it again: one nvidia-smi that timed out under load is not enough to take a node away. Faults
 * that neither fixes (a deployment problem, an answer we cannot read) are logged, never marked.
 * Each change of outcome is logged and audited once, not every round.
 */
public final class NodeCheckWatch implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(NodeCheckWatch.class);
    /** A reason stays readable in sinfo and far below Slurm's limits; our own words come first. */
    static final int MAX_DETAIL = 200;

    private static final Pattern COMMAND = Pattern.compile("`(?:[^`\\s]*/)?([^`/\\s]+)[^`]*`");
    /** Asks from outside within this of the last round's end share it: the checks' cost stays bounded. */
    static final Duration ASK_GAP = Duration.ofSeconds(2);
    /**
     * How soon a round asked for confirms what it found. A supervisor asks only after an attempt
     * failed, when a fault is likely, and waits for the answer; the second look still keeps one
     * timed-out nvidia-smi from taking the node away.
     */
    static final Duration CONFIRM_ON_REQUEST = Duration.ofMillis(500);

    /** What a watch checks: its words in logs, its thread, its counter. */
    public enum Kind {
        GPU("GPU check", "gpu-health-watch", "gpuCheck"),
        SLURMD("slurmd check", "slurmd-watch", "slurmdCheck");

        private final String words;
        private final String thread;
        /** The key of its audit lines' finding. */
        private final String audited;

        Kind(String words, String thread, String audited) {
            this.words = words;
            this.thread = thread;
            this.audited = audited;
        }

        void count(AgentMetrics metrics, CheckResult result) {
            if (this == GPU) {
                metrics.gpuCheck(result.check(), result.status());
            } else {
                metrics.slurmdCheck(result.status());
            }
        }
    }

    private final Kind kind;
    private final List<HealthCheck> checks;
    private final HealthContext context;
    private final OwnNodeMarker marker;
    private final AuditLog audit;
    private final AgentMetrics metrics;
    private final Duration every;
    private final Duration confirmAfter;
    private final ScheduledExecutorService timer;
    /** The rounds asked for from outside ({@link #checkNow}), shared by everyone who asks close together. */
    private final SharedRound<Void> asked = new SharedRound<>(ASK_GAP, System::nanoTime);
    /** The actionable finding of the last round, awaiting its confirmation; null when none. */
    private String suspect;
    /** What the last logged round said, so that an unchanged state is not logged again. */
    private String lastReported = "";

    NodeCheckWatch(
            Kind kind,
            List<HealthCheck> checks,
            HealthContext context,
            OwnNodeMarker marker,
            AuditLog audit,
            AgentMetrics metrics,
            Duration every,
            Duration confirmAfter) {
        if (every.isNegative() || every.isZero() || confirmAfter.isNegative() || confirmAfter.isZero()) {
            throw new IllegalArgumentException(
                    kind.words + " intervals must be positive: " + every + ", " + confirmAfter);
        }
        this.kind = Objects.requireNonNull(kind);
        this.checks = List.copyOf(checks);
        this.context = Objects.requireNonNull(context);
        this.marker = Objects.requireNonNull(marker);
        this.audit = Objects.requireNonNull(audit);
        this.metrics = Objects.requireNonNull(metrics);
        this.every = every;
        this.confirmAfter = confirmAfter;
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, kind.thread);
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The agent's watch for {@code node}: checks that do not disturb a job, run every {@code every}. */
    public static NodeCheckWatch start(
            Kind kind,
            List<HealthCheck> checks,
            HealthContext context,
            OwnNodeMarker marker,
            AuditLog audit,
            AgentMetrics metrics,
            Duration every) {
        Duration confirm = every.compareTo(Duration.ofSeconds(5)) < 0 ? every : Duration.ofSeconds(5);
        NodeCheckWatch watch = new NodeCheckWatch(kind, checks, context, marker, audit, metrics, every, confirm);
        watch.timer.schedule(watch::roundAndReschedule, 0, TimeUnit.MILLISECONDS);
        return watch;
    }

    private void roundAndReschedule() {
        Duration next = every;
        try {
            next = round();
        } catch (RuntimeException e) {
            LOG.error("{} round on {} failed: {}", kind.words, marker.node(), e.toString());
        }
        if (!timer.isShutdown()) {
            timer.schedule(this::roundAndReschedule, next.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * A round now, out of turn, for a supervisor settling a failed attempt: completes when the
     * checks ran and, where they found a fault, ran again {@link #CONFIRM_ON_REQUEST} later and
     * marked the node. Whoever asks while it runs, or within {@link #ASK_GAP} after it ended,
     * shares that round ({@link SharedRound}): however many ask, the checks run at most once per
     * gap, as they would at an interval of that length. Nothing the asker says reaches the checks.
     */
    public CompletableFuture<Void> checkNow() {
        if (timer.isShutdown()) {
            return CompletableFuture.completedFuture(null); // closed: nothing more is checked
        }
        return asked.ask(timer, () -> {
            try {
                askedRound();
            } catch (RuntimeException e) {
                LOG.error("{} round on {} asked for failed: {}", kind.words, marker.node(), e.toString());
            }
            return null;
        });
    }

    /** The checks now; a fault found is confirmed shortly after instead of at the next turn. */
    private void askedRound() {
        round();
        boolean unconfirmed;
        synchronized (this) {
            unconfirmed = suspect != null;
        }
        if (unconfirmed) {
            try {
                Thread.sleep(CONFIRM_ON_REQUEST.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            round();
        }
    }

    /** Runs the checks once and acts on them; returns how long until the next round. */
    synchronized Duration round() {
        List<CheckResult> actionable = new ArrayList<>();
        List<CheckResult> unfixable = new ArrayList<>();
        for (HealthCheck check : checks) {
            CheckResult result = check.run(context);
            kind.count(metrics, result);
            if (result.failed()) {
                // Only what a reboot or a replacement fixes is marked: a person's problem (NONE) or
                // a full filesystem (FREE_SPACE) is neither.
                (result.action().mark().isEmpty() ? unfixable : actionable).add(result);
            }
        }
        if (actionable.isEmpty()) {
            suspect = null;
            report(
                    unfixable.isEmpty() ? "healthy" : "unfixable: " + detail(unfixable),
                    unfixable,
                    "not marked: neither" + " a reboot nor a replacement fixes it");
            return every;
        }
        String finding = detail(actionable);
        String state = "fault: " + finding;
        if (state.equals(lastReported)) {
            // Acted on already (marked, or found out of service): the same finding is not news.
            return every;
        }
        if (suspect == null) {
            suspect = finding;
            LOG.info(
                    "{} on {} found a fault ({}); checking again in {} s before marking",
                    kind.words,
                    marker.node(),
                    finding,
                    confirmAfter.toSeconds());
            return confirmAfter;
        }
        suspect = null;
        NodeMark.Action action =
                worst(actionable) == HealthAction.REPLACE ? NodeMark.Action.REPLACE : NodeMark.Action.REBOOT;
        String outcome = marker.mark(action, finding + ", seen by autoresume agent", kind.words);
        lastReported = outcome.startsWith("marking failed") ? "" : state;
        audit.recordHealth(kind.audited, entry(actionable), outcome);
        return every;
    }

    private void report(String state, List<CheckResult> results, String outcome) {
        if (state.equals(lastReported)) {
            return;
        }
        boolean first = lastReported.isEmpty();
        lastReported = state;
        if (results.isEmpty()) {
            if (!first) {
                LOG.info("{}s on {} pass again", kind.words, marker.node());
                audit.recordHealth(kind.audited, Map.of("node", marker.node()), "healthy again");
            }
            return;
        }
        LOG.warn("{} on {} failed: {} ({})", kind.words, marker.node(), detail(results), outcome);
        audit.recordHealth(kind.audited, entry(results), outcome);
    }

    private Map<String, Object> entry(List<CheckResult> results) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("node", marker.node());
        for (CheckResult result : results) {
            entry.put(
                    result.check(),
                    Map.of("action", result.action().name().toLowerCase(Locale.ROOT), "evidence", result.evidence()));
        }
        return entry;
    }

    private static HealthAction worst(List<CheckResult> results) {
        HealthAction worst = HealthAction.NONE;
        for (CheckResult result : results) {
            worst = worst.worse(result.action());
        }
        return worst;
    }

    /** "GPU check: found 3 GPU(s), expected 4; dcgm: ...": printable, one line, bounded. */
    static String detail(List<CheckResult> results) {
        StringBuilder text = new StringBuilder();
        for (CheckResult result : results) {
            if (text.length() > 0) {
                text.append("; ");
            }
            text.append(result.check()).append(" check: ").append(result.summary());
        }
        // A failed command is quoted whole ("`/usr/bin/nvidia-smi --query-gpu=... --format=...` exited with
        // status 255: ..."); its program's name says as much in a reason and leaves room for the error.
        String named = COMMAND.matcher(text).replaceAll("$1");
        String printable = named.replaceAll("[\\p{Cntrl}\"]+", " ").strip();
        return printable.length() <= MAX_DETAIL ? printable : printable.substring(0, MAX_DETAIL - 3) + "...";
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
