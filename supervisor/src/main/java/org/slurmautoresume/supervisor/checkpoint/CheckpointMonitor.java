package org.slurmautoresume.supervisor.checkpoint;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slurmautoresume.supervisor.rules.RuleState;
import org.slurmautoresume.supervisor.rules.RuleViolation;

/**
 * The checkpoint rule over one attempt: each {@link #scan()} asks the {@link CheckpointLocator}
 * for the newest complete checkpoint, and the attempt is HANGING when no new one came in time.
 *
 * <p>"New" means newer than the checkpoint present when the monitor was made (the attempt's
 * start): a re-run must write its own, the one it resumed from does not count. A checkpoint counts
 * as written when its marker says, but clamped into the span in which it must have appeared
 * (after the previous scan, before this one), so a file server whose clock is off can neither
 * fire the rule early nor hold it off by more than a scan. A checkpoint that came after its
 * deadline does not excuse the wait, as a late log line does not. A scan that fails (the directory
 * unreadable) sees nothing new; a directory that does not exist yet is just empty.
 *
 * <p>Create one per attempt. Not thread-safe: one timer thread scans.
 */
public final class CheckpointMonitor {

    private static final long NO_DEADLINE = Long.MAX_VALUE;

    private final CheckpointLocator locator;
    private final InstantSource clock;
    private final long startedAt;
    private final long startCutOffMillis;
    private final long recurringMillis;
    private final long intervalMillis;
    /** The newest complete checkpoint when the attempt started; null when none, or it could not be read. */
    private final CheckpointLocator.Checkpoint baseline;
    /** False when the look at the start failed: then only what was written since the start is new. */
    private final boolean baselineRead;

    /** The attempt's newest new checkpoint, and when it counts as written; null before the first. */
    private CheckpointLocator.Checkpoint latest;

    private long latestAt;
    private long newCount;
    private long previousScanAt;
    /** What the newest scan saw, and why it failed if it did: the evidence of a violation. */
    private Optional<CheckpointLocator.Checkpoint> lastSeen = Optional.empty();

    private String scanFailure;
    private boolean reported;
    /**
     * When the newest complete checkpoint known was written (this attempt's, else the one it started
     * from); read by the attempt's end on another thread, for the work a fault makes the job redo.
     */
    private volatile Optional<Instant> newestComplete = Optional.empty();

    /** Starts watching now: reads the checkpoint that is already there. */
    public CheckpointMonitor(CheckpointRule rule, CheckpointLocator locator, InstantSource clock) {
        this.locator = Objects.requireNonNull(locator);
        this.clock = Objects.requireNonNull(clock);
        this.startCutOffMillis = rule.expectedStartCutOffInSeconds().orElse(0) * 1000;
        this.recurringMillis = rule.expectedRecurringFrequencyInSeconds().orElse(0) * 1000;
        this.intervalMillis = rule.scanInterval().toMillis();
        this.startedAt = clock.millis();
        this.baseline = look().orElse(null);
        this.baselineRead = scanFailure == null;
        this.previousScanAt = startedAt;
        this.newestComplete = Optional.ofNullable(baseline).map(CheckpointLocator.Checkpoint::writtenAt);
    }

    /** Looks once; returns the violation it reveals, at most once per monitor. */
    public Optional<RuleViolation> scan() {
        if (reported) {
            return Optional.empty();
        }
        long now = clock.millis();
        Optional<CheckpointLocator.Checkpoint> newest = look();
        if (newest.isPresent() && isNew(newest.get())) {
            long writtenAt = Math.min(
                    now, Math.max(previousScanAt, newest.get().writtenAt().toEpochMilli()));
            if (writtenAt <= deadline()) {
                latest = newest.get();
                latestAt = writtenAt;
                newCount++;
                newestComplete = Optional.of(Instant.ofEpochMilli(writtenAt));
            }
        }
        previousScanAt = now;
        if (now > deadline()) {
            reported = true;
            return Optional.of(violation(now));
        }
        return Optional.empty();
    }

    /** When the newest complete checkpoint seen so far was written; empty when none was. */
    public Optional<Instant> newestComplete() {
        return newestComplete;
    }

    /** How many new checkpoints this attempt wrote in time, as far as the scans saw. */
    public long newCount() {
        return newCount;
    }

    /** How long until the next scan: the scan interval, or less so that a deadline is checked on time. */
    public Duration untilNextScan() {
        long deadline = deadline();
        long wait = intervalMillis;
        if (deadline != NO_DEADLINE) {
            wait = Math.min(wait, deadline + 1 - clock.millis());
        }
        return Duration.ofMillis(Math.max(1, wait));
    }

    private Optional<CheckpointLocator.Checkpoint> look() {
        try {
            lastSeen = locator.newest();
            scanFailure = null;
        } catch (UncheckedIOException e) {
            lastSeen = Optional.empty();
            scanFailure = e.getMessage()
                    + (e.getCause() == null ? "" : ": " + e.getCause().getMessage());
        }
        return lastSeen;
    }

    /** Newer than the last one counted (or the baseline): another place, or the same rewritten, not older. */
    private boolean isNew(CheckpointLocator.Checkpoint found) {
        CheckpointLocator.Checkpoint previous = latest != null ? latest : baseline;
        if (previous == null) {
            return baselineRead || !found.writtenAt().isBefore(Instant.ofEpochMilli(startedAt));
        }
        return !found.equals(previous) && !found.writtenAt().isBefore(previous.writtenAt());
    }

    private long deadline() {
        if (latest == null) {
            return startCutOffMillis > 0 ? startedAt + startCutOffMillis : NO_DEADLINE;
        }
        return recurringMillis > 0 ? latestAt + recurringMillis : NO_DEADLINE;
    }

    private RuleViolation violation(long now) {
        String limit = latest == null
                ? "no new complete checkpoint in " + locator.dir() + " within expectedStartCutOffInSeconds="
                        + RuleViolation.seconds(startCutOffMillis) + " of the start ("
                        + RuleViolation.seconds(now - startedAt) + " s)"
                : "no new complete checkpoint in " + locator.dir() + " for " + RuleViolation.seconds(now - latestAt)
                        + " s, more than expectedRecurringFrequencyInSeconds=" + RuleViolation.seconds(recurringMillis);
        return new RuleViolation(
                CheckpointRule.NAME,
                RuleState.HANGING,
                limit + "; " + evidence(),
                Instant.ofEpochMilli(startedAt),
                Instant.ofEpochMilli(now),
                latest == null ? Optional.empty() : Optional.of(Instant.ofEpochMilli(latestAt)),
                latest == null ? Optional.empty() : Optional.of(latest.path().toString()),
                Optional.empty(),
                newCount,
                List.of(),
                RuleViolation.Source.CHECKPOINT_RULE);
    }

    /** The newest complete checkpoint there is, and whether this attempt wrote it. */
    private String evidence() {
        StringBuilder text = new StringBuilder();
        if (lastSeen.isPresent()) {
            CheckpointLocator.Checkpoint seen = lastSeen.get();
            text.append("newest complete checkpoint ")
                    .append(seen.path())
                    .append(", marker written at ")
                    .append(seen.writtenAt().truncatedTo(ChronoUnit.MILLIS));
            if (seen.equals(baseline)) {
                text.append(", from before this attempt");
            } else if (!seen.equals(latest)) {
                text.append(", too late");
            }
        } else if (scanFailure == null && !Files.isDirectory(locator.dir(), LinkOption.NOFOLLOW_LINKS)) {
            text.append(locator.dir()).append(" does not exist");
        } else if (scanFailure == null) {
            text.append("no checkpoint in it holds ").append(locator.marker());
        }
        if (scanFailure != null) {
            text.append("the last look failed: ").append(scanFailure);
        }
        text.append("; ").append(newCount).append(" new in this attempt");
        return text.toString();
    }
}
