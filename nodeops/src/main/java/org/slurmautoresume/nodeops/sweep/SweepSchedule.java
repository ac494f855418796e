package org.slurmautoresume.nodeops.sweep;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sweeps on a fixed delay, for a long-running process such as the agent (which then needs no
 * cron or timer of its own). Each pass takes the same lock as {@code autoresume sweep}, so a
 * timer-driven sweep and this one never act at once: a busy lock skips the pass and says so.
 * A pass that throws is reported and the schedule goes on.
 */
public final class SweepSchedule implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SweepSchedule.class);

    private final Sweep sweep;
    private final SweepPolicy policy;
    private final Path lockFile;
    private final Consumer<Object> reports;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "scheduled-sweep");
        t.setDaemon(true);
        return t;
    });

    /** {@code reports} gets each {@link SweepReport}, or a one-line text when a pass did not run. */
    public SweepSchedule(Sweep sweep, SweepPolicy policy, Path lockFile, Consumer<Object> reports) {
        this.sweep = Objects.requireNonNull(sweep);
        this.policy = Objects.requireNonNull(policy);
        this.lockFile = Objects.requireNonNull(lockFile);
        this.reports = Objects.requireNonNull(reports);
    }

    /** The first pass runs after {@code every}, then one every {@code every} after the last ended. */
    public void start(Duration every) {
        if (every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("a sweep interval must be positive: " + every);
        }
        timer.scheduleWithFixedDelay(this::runOnce, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** One pass now, on the caller's thread; what the schedule runs. */
    public void runOnce() {
        try {
            SweepReport report = sweep.run(policy, false, lockFile);
            if (report.statusValue() != SweepReport.Status.NOTHING_TO_DO) {
                LOG.info(
                        "scheduled sweep: {} ({} action(s), {} held back)",
                        report.status(),
                        report.actions().size(),
                        report.heldBack().size());
            }
            reports.accept(report);
        } catch (SweepLock.BusyException e) {
            LOG.info("scheduled sweep skipped: {}", e.getMessage());
            reports.accept("skipped: " + e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("scheduled sweep failed: {}", e.toString());
            reports.accept("failed: " + e);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
