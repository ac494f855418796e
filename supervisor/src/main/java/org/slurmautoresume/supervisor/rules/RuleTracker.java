package org.slurmautoresume.supervisor.rules;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;

/**
 * The state of one rule during one attempt. Time is in epoch milliseconds from the monitor's
 * clock; the clock is read only when a line matches or on a tick, never for other lines.
 * A violation is reported once: after it the tracker stops evaluating.
 */
final class RuleTracker {

    /** Evidence kept for SLOW/FAULTED: the newest bad data points, not all 10,000 of a long run. */
    static final int KEPT_POINTS = 32;

    private final LogRule rule;
    private final RulePattern logPattern;
    private final RulePattern stopPattern;
    private final long startCutOffMillis;
    private final long recurringMillis;
    private final long startedAt;

    private RuleState state = RuleState.WAITING;
    private boolean stopped;
    private boolean reported;
    private long matches;
    private long lastMatchAt;
    /** When the first line matched; -1 before it. */
    private long firstMatchAt = -1;
    /** How long the next match may take: the recurring frequency, or the longer wait the last line asked for. */
    private long nextWithinMillis;

    private String lastMatchLine;
    private OutputObserver.Stream lastMatchStream;
    private int badRun;
    private boolean unreadableInRun;
    private final Deque<DataPoint> badPoints = new ArrayDeque<>();

    RuleTracker(LogRule rule, long startedAt) {
        this.rule = rule;
        this.logPattern = new RulePattern(rule.logPattern());
        this.stopPattern = rule.stopPattern().map(RulePattern::new).orElse(null);
        this.startCutOffMillis = rule.expectedStartCutOffInSeconds().orElse(-1) * 1000;
        this.recurringMillis = rule.expectedRecurringFrequencyInSeconds().orElse(-1) * 1000;
        this.startedAt = startedAt;
    }

    LogRule rule() {
        return rule;
    }

    RuleState state() {
        return state;
    }

    /** True once a line matched {@code stopPattern}: the rule no longer judges anything. */
    boolean stopped() {
        return stopped;
    }

    long matches() {
        return matches;
    }

    long firstMatchAt() {
        return firstMatchAt;
    }

    /** Looks at one line; returns the violation it reveals, or null. */
    RuleViolation onLine(OutputObserver.Stream stream, String line, LongSupplier clock) {
        if (stopped || reported) {
            return null;
        }
        if (stopPattern != null && stopPattern.matches(line)) {
            stopped = true;
            return null;
        }
        Matcher match;
        if (rule.hasMetric()) {
            match = logPattern.match(line);
            if (match == null) {
                return null;
            }
        } else {
            if (!logPattern.matches(line)) {
                return null;
            }
            match = null;
        }
        long now = clock.getAsLong();
        // A match that comes after its deadline does not excuse the silence before it.
        RuleViolation late = overdue(now);
        if (late != null) {
            return late;
        }
        if (matches++ == 0) {
            firstMatchAt = now;
        }
        lastMatchAt = now;
        nextWithinMillis = rule.longerWait()
                .filter(w -> line.contains(w.text()))
                .map(w -> w.seconds() * 1000)
                .orElse(recurringMillis);
        lastMatchLine = line;
        lastMatchStream = stream;
        if (match == null) {
            state = RuleState.HEALTHY;
            return null;
        }
        return judge(readPoint(match.group(1), now), now);
    }

    /** Time passes with no line: a start cut-off or a recurring frequency may have run out. */
    RuleViolation onTick(long now) {
        if (stopped || reported) {
            return null;
        }
        return overdue(now);
    }

    private RuleViolation overdue(long now) {
        if (state == RuleState.WAITING) {
            if (startCutOffMillis > 0 && now - startedAt > startCutOffMillis) {
                return violate(
                        RuleState.HANGING,
                        "no line matched logPattern within expectedStartCutOffInSeconds=" + seconds(startCutOffMillis)
                                + " of the start (" + seconds(now - startedAt) + " s)",
                        now);
            }
        } else if (nextWithinMillis > 0 && now - lastMatchAt > nextWithinMillis) {
            String allowed = nextWithinMillis == recurringMillis
                    ? "expectedRecurringFrequencyInSeconds=" + seconds(recurringMillis)
                    : seconds(nextWithinMillis) + " s after a line with \""
                            + rule.longerWait().orElseThrow().text() + "\"";
            return violate(
                    RuleState.HANGING,
                    "no line matched logPattern for " + seconds(now - lastMatchAt) + " s, more than " + allowed,
                    now);
        }
        return null;
    }

    private RuleViolation judge(DataPoint point, long now) {
        boolean bad = !point.readable()
                || rule.operator()
                        .orElseThrow()
                        .breaches(point.value(), rule.metricThreshold().getAsDouble());
        if (!bad) {
            badRun = 0;
            unreadableInRun = false;
            badPoints.clear();
            state = RuleState.HEALTHY;
            return null;
        }
        badRun++;
        unreadableInRun |= !point.readable();
        badPoints.addLast(point);
        if (badPoints.size() > KEPT_POINTS) {
            badPoints.removeFirst();
        }
        if (badRun < rule.metricEvaluationDataPoints()) {
            state = RuleState.HEALTHY;
            return null;
        }
        String threshold = rule.operator().get().configName() + " "
                + formatNumber(rule.metricThreshold().getAsDouble());
        if (unreadableInRun) {
            return violate(
                    RuleState.FAULTED,
                    badRun + " data points in a row were bad and some were not numbers" + " (last \"" + point.text()
                            + "\"); metricEvaluationDataPoints=" + rule.metricEvaluationDataPoints(),
                    now);
        }
        return violate(
                RuleState.SLOW,
                badRun + " data points in a row were " + threshold + " (last " + point.text()
                        + "); metricEvaluationDataPoints=" + rule.metricEvaluationDataPoints(),
                now);
    }

    private static DataPoint readPoint(String captured, long now) {
        String text = captured == null ? "" : captured.strip();
        double value;
        try {
            value = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            value = Double.NaN;
        }
        return new DataPoint(Instant.ofEpochMilli(now), text, Double.isFinite(value) ? value : Double.NaN);
    }

    private RuleViolation violate(RuleState reached, String reason, long now) {
        state = reached;
        reported = true;
        List<DataPoint> points = reached == RuleState.HANGING ? List.of() : new ArrayList<>(badPoints);
        boolean matched = matches > 0;
        return new RuleViolation(
                rule.name(),
                reached,
                reason,
                Instant.ofEpochMilli(startedAt),
                Instant.ofEpochMilli(now),
                matched ? Optional.of(Instant.ofEpochMilli(lastMatchAt)) : Optional.empty(),
                Optional.ofNullable(lastMatchLine),
                Optional.ofNullable(lastMatchStream),
                matches,
                points);
    }

    private static String seconds(long millis) {
        return RuleViolation.seconds(millis);
    }

    private static String formatNumber(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15
                ? Long.toString((long) value)
                : Double.toString(value);
    }
}
