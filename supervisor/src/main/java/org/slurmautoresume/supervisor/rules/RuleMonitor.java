package org.slurmautoresume.supervisor.rules;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Applies a job's log rules to the lines of one attempt. Lines come from both pump threads,
 * {@link #tick()} from a timer; all three may call at once. Each rule's first violation is
 * handed to the listener exactly once, outside the monitor's lock (the listener may stop the
 * step, which ends the pumps that call in here).
 *
 * <p>Create one monitor per attempt: every rule starts WAITING with its start cut-off counted
 * from the monitor's creation.
 */
public final class RuleMonitor {

    private final List<RuleTracker> trackers;
    private final InstantSource clock;
    private final Consumer<RuleViolation> listener;
    /** Made once: a method reference per line would be an allocation per line. */
    private final LongSupplier millis;

    public RuleMonitor(List<LogRule> rules, InstantSource clock, Consumer<RuleViolation> listener) {
        this.clock = Objects.requireNonNull(clock);
        this.listener = Objects.requireNonNull(listener);
        this.millis = clock::millis;
        long now = clock.millis();
        List<RuleTracker> built = new ArrayList<>(rules.size());
        for (LogRule rule : rules) {
            built.add(new RuleTracker(rule, now));
        }
        this.trackers = List.copyOf(built);
    }

    /** One complete line (without its terminator) from srun's stdout or stderr. */
    public void onLine(OutputObserver.Stream stream, String line) {
        List<RuleViolation> found = null;
        synchronized (this) {
            for (RuleTracker tracker : trackers) {
                RuleViolation violation = tracker.onLine(stream, line, millis);
                if (violation != null) {
                    found = add(found, violation);
                }
            }
        }
        deliver(found);
    }

    /** Checks the time-based limits; call it about once a second. */
    public void tick() {
        List<RuleViolation> found = null;
        synchronized (this) {
            long now = clock.millis();
            for (RuleTracker tracker : trackers) {
                RuleViolation violation = tracker.onTick(now);
                if (violation != null) {
                    found = add(found, violation);
                }
            }
        }
        deliver(found);
    }

    /** Each rule's current state by name, in configuration order. */
    public synchronized Map<String, RuleState> states() {
        Map<String, RuleState> states = new LinkedHashMap<>();
        for (RuleTracker tracker : trackers) {
            states.put(tracker.rule().name(), tracker.state());
        }
        return states;
    }

    /** When a line first matched the named rule (epoch milliseconds); empty before one did, or without the rule. */
    public synchronized OptionalLong firstMatchAt(String ruleName) {
        return trackers.stream()
                .filter(t -> t.rule().name().equals(ruleName) && t.firstMatchAt() >= 0)
                .mapToLong(RuleTracker::firstMatchAt)
                .findFirst();
    }

    /** Whether the named rule was switched off by its {@code stopPattern}. */
    public synchronized boolean stopped(String ruleName) {
        return trackers.stream().anyMatch(t -> t.rule().name().equals(ruleName) && t.stopped());
    }

    private static List<RuleViolation> add(List<RuleViolation> found, RuleViolation violation) {
        List<RuleViolation> list = found == null ? new ArrayList<>(2) : found;
        list.add(violation);
        return list;
    }

    private void deliver(List<RuleViolation> found) {
        if (found != null) {
            found.forEach(listener);
        }
    }
}
