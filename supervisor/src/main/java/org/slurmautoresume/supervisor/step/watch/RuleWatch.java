package org.slurmautoresume.supervisor.step.watch;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.supervisor.checkpoint.CheckpointMonitor;
import org.slurmautoresume.supervisor.rules.Heartbeat;
import org.slurmautoresume.supervisor.rules.LogRule;
import org.slurmautoresume.supervisor.rules.OutputObserver;
import org.slurmautoresume.supervisor.rules.RuleMonitor;
import org.slurmautoresume.supervisor.rules.RuleOutputObserver;
import org.slurmautoresume.supervisor.rules.RuleViolation;

/**
 * The rules over one attempt: a {@link RuleMonitor} fed both of srun's streams and ticked by a
 * timer, so a step that prints nothing at all is still found HANGING, and the checkpoint rule's
 * {@link CheckpointMonitor} scanned on a timer of its own (a scan may hang on NFS). The first violation of any of them, and only
 * it, is handed on, on a thread of its own: never a pump's, so that while the handler signals and
 * stops the step its last words are still copied to the user, and never the timer's, so the next
 * attempt's rules tick on time.
 */
public final class RuleWatch implements AutoCloseable {

    /** Finer than the one second the rules promise: detection within the limit plus one tick. */
    static final Duration TICK = Duration.ofMillis(200);

    private final RuleMonitor monitor;
    private final RuleOutputObserver observer;
    private final AtomicReference<RuleViolation> first = new AtomicReference<>();
    private final ScheduledExecutorService ticker;
    private final ScheduledExecutorService scanner;
    private final ScheduledFuture<?> ticking;
    private volatile ScheduledFuture<?> scanning;
    private volatile boolean closed;
    private final Consumer<RuleViolation> onViolation;
    private final AtomicReference<Thread> handler = new AtomicReference<>();
    private final Optional<CheckpointMonitor> checkpoints;
    private final boolean heartbeat;
    private final Consumer<Progress> onProgress;
    private final AtomicBoolean progressed = new AtomicBoolean();

    /**
     * The attempt's first sign of progress: its first heartbeat, or the first new complete checkpoint
     * the scans saw, whichever came first; {@code source} is {@code heartbeat} or {@code checkpoint}.
     */
    public record Progress(String source, Instant at) {}

    RuleWatch(
            List<LogRule> rules,
            InstantSource clock,
            ScheduledExecutorService ticker,
            Consumer<RuleViolation> onViolation) {
        this(rules, Optional.empty(), clock, ticker, onViolation);
    }

    /** @param checkpoints the checkpoint rule, made at the attempt's start; empty when not configured */
    RuleWatch(
            List<LogRule> rules,
            Optional<CheckpointMonitor> checkpoints,
            InstantSource clock,
            ScheduledExecutorService ticker,
            Consumer<RuleViolation> onViolation) {
        this(rules, checkpoints, clock, ticker, ticker, onViolation, progress -> {});
    }

    /**
     * @param scanner    where the checkpoint scans run: a thread of their own, so a scan stuck on
     *                   a hung file system cannot hold up the log rules' ticks
     * @param onProgress told once of the attempt's first progress: on the ticker's or the scanner's
     *                   thread, or on the thread that closes the watch
     */
    public RuleWatch(
            List<LogRule> rules,
            Optional<CheckpointMonitor> checkpoints,
            InstantSource clock,
            ScheduledExecutorService ticker,
            ScheduledExecutorService scanner,
            Consumer<RuleViolation> onViolation,
            Consumer<Progress> onProgress) {
        this.onViolation = onViolation;
        this.checkpoints = checkpoints;
        this.onProgress = onProgress;
        this.heartbeat = rules.stream().anyMatch(Heartbeat::watches);
        this.ticker = ticker;
        this.scanner = scanner;
        this.monitor = new RuleMonitor(rules, clock, this::report);
        this.observer = rules.isEmpty() ? null : new RuleOutputObserver(monitor);
        this.ticking = rules.isEmpty()
                ? null
                : ticker.scheduleAtFixedRate(this::tick, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
        checkpoints.ifPresent(this::scanLater);
    }

    private void report(RuleViolation violation) {
        if (first.compareAndSet(null, violation)) {
            Thread thread = new Thread(() -> onViolation.accept(violation), "rule-violation");
            thread.setDaemon(true);
            handler.set(thread);
            thread.start();
        }
    }

    private void tick() {
        if (first.get() == null) {
            monitor.tick();
        }
        if (!closed) {
            noticeHeartbeat();
        }
    }

    private void noticeHeartbeat() {
        if (heartbeat && !progressed.get()) {
            monitor.firstMatchAt(Heartbeat.NAME).ifPresent(at -> progressed("heartbeat", Instant.ofEpochMilli(at)));
        }
    }

    private void progressed(String source, Instant at) {
        if (progressed.compareAndSet(false, true)) {
            onProgress.accept(new Progress(source, at));
        }
    }

    /** Which signs of progress the attempt watches: {@code heartbeat}, {@code checkpoint}, both or none. */
    public List<String> progressSources() {
        List<String> sources = new java.util.ArrayList<>(2);
        if (heartbeat) {
            sources.add("heartbeat");
        }
        if (checkpoints.isPresent()) {
            sources.add("checkpoint");
        }
        return sources;
    }

    /** When the newest complete checkpoint the checkpoint rule knows was written; empty without one. */
    public Optional<Instant> newestCheckpoint() {
        return checkpoints.flatMap(CheckpointMonitor::newestComplete);
    }

    /** Each scan schedules the next: the monitor says when, so a deadline is checked on time. */
    private void scanLater(CheckpointMonitor checkpoints) {
        ScheduledFuture<?> next;
        try {
            next = scanner.schedule(
                    () -> scan(checkpoints), checkpoints.untilNextScan().toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return; // the supervisor is ending
        }
        scanning = next;
        if (closed) {
            next.cancel(false);
        }
    }

    private void scan(CheckpointMonitor checkpoints) {
        if (closed || first.get() != null) {
            return;
        }
        try {
            checkpoints.scan().ifPresent(this::report);
            if (checkpoints.newCount() > 0 && !progressed.get()) {
                checkpoints.newestComplete().ifPresent(at -> progressed("checkpoint", at));
            }
        } catch (RuntimeException e) { // the rule goes on: a surprise in one scan must not end the watch
            LoggerFactory.getLogger(RuleWatch.class).warn("checkpoint scan failed", e);
        }
        if (!closed && first.get() == null) {
            scanLater(checkpoints);
        }
    }

    /** What srun's output goes through; null without log rules, so the output is not split into lines for nothing. */
    public OutputObserver observer() {
        return observer;
    }

    Optional<RuleViolation> violation() {
        return Optional.ofNullable(first.get());
    }

    /** Waits for the violation's handler (if one started) to finish acting on it. */
    void awaitHandler(Duration timeout) throws InterruptedException {
        Thread thread = handler.get();
        if (thread != null) {
            thread.join(Math.max(1, timeout.toMillis()));
        }
    }

    /** No more ticks or scans: the attempt is over. */
    @Override
    public void close() {
        closed = true;
        if (ticking != null) {
            ticking.cancel(false);
        }
        ScheduledFuture<?> scan = scanning;
        if (scan != null) {
            scan.cancel(false);
        }
        // A first beat the ticks had no time to see (a short attempt) is still its progress, said before its end.
        noticeHeartbeat();
    }
}
