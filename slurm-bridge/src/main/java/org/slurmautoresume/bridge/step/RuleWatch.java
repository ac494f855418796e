package org.slurmautoresume.bridge.step;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slurmautoresume.bridge.rules.LogRule;
import org.slurmautoresume.bridge.rules.RuleMonitor;
import org.slurmautoresume.bridge.rules.RuleOutputObserver;
import org.slurmautoresume.bridge.rules.RuleViolation;

/**
 * The log rules over one attempt: a {@link RuleMonitor} fed both of srun's streams and ticked by
 * a timer, so a step that prints nothing at all is still found HANGING. The first violation, and
 * only it, is handed on, on a thread of its own: never a pump's, so that while the handler signals
 * and stops the step its last words are still copied to the user, and never the ticker's, so the
 * next attempt's rules tick on time.
 */
final class RuleWatch implements AutoCloseable {

    /** Finer than the one second the rules promise: detection within the limit plus one tick. */
    static final Duration TICK = Duration.ofMillis(200);

    private final RuleMonitor monitor;
    private final RuleOutputObserver observer;
    private final AtomicReference<RuleViolation> first = new AtomicReference<>();
    private final ScheduledFuture<?> ticking;
    private final AtomicReference<Thread> handler = new AtomicReference<>();

    RuleWatch(List<LogRule> rules, InstantSource clock, ScheduledExecutorService ticker,
              Consumer<RuleViolation> onViolation) {
        this.monitor = new RuleMonitor(rules, clock, violation -> {
            if (first.compareAndSet(null, violation)) {
                Thread thread = new Thread(() -> onViolation.accept(violation), "rule-violation");
                thread.setDaemon(true);
                handler.set(thread);
                thread.start();
            }
        });
        this.observer = new RuleOutputObserver(monitor);
        this.ticking = ticker.scheduleAtFixedRate(this::tick, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void tick() {
        if (first.get() == null) {
            monitor.tick();
        }
    }

    OutputObserver observer() {
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

    /** No more ticks: the attempt is over. */
    @Override
    public void close() {
        ticking.cancel(false);
    }
}
