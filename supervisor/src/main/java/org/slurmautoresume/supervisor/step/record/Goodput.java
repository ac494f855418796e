package org.slurmautoresume.supervisor.step.record;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A job's goodput, worked out from its timeline alone: how much of the time its supervised steps
 * ran was productive, and how much was lost to faults, by cause.
 *
 * <ul>
 *   <li><b>detection</b>: from a fault's last sign of health (the detection's latency back from it)
 *       to its detection;
 *   <li><b>recovery</b>: from the detection (or the attempt's end, when nothing detected the fault
 *       earlier) to the next launch: stopping the step, diagnosis, replacement, the toolkit's share;
 *   <li><b>restart</b>: from a relaunch to the new attempt's first sign of progress (its first
 *       heartbeat, or its first new checkpoint): the application's own restart;
 *   <li><b>redone</b>: from the newest complete checkpoint before a fault to the fault's last sign of
 *       health: work done again after the restart.
 * </ul>
 *
 * What the timeline cannot split is said, not guessed: a relaunch with neither a heartbeat nor a
 * checkpoint rule has no known end to its restart, and a fault without a checkpoint rule no known
 * start to the work it loses; such time is {@code unattributed}, counted neither productive nor
 * lost. A detection without a latency (the slurmd probe's) counts as found at once and is counted
 * in {@code unmeasuredDetections}. Time between steps (after one ended for good, before the next
 * srun) is nobody's and not counted.
 *
 * <p>{@link #of} with {@code settled} counts only spans whose ends are recorded, so that a later
 * event never changes a span already counted: what a supervisor may report as counter increments.
 */
public record Goodput(
        Duration productive,
        Duration detection,
        Duration recovery,
        Duration restart,
        Duration redone,
        Duration unattributed,
        int faults,
        int unmeasuredDetections) {

    /** The causes of lost time, as the metrics' {@code cause} label names them. */
    public static final List<String> CAUSES = List.of("detection", "recovery", "restart", "redone");

    public static final Goodput NONE =
            new Goodput(Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, 0, 0);

    /** Attempt ends that are a fault: the step is run again, or would have been. */
    private static final Set<String> FAULTS = Set.of("NODE_FAULT", "APP_FAILURE", "NOT_STARTED");
    /** Events after which a step is not run again by this supervisor. */
    private static final Set<String> FINAL = Set.of("give-up", "requeue", "repeated-failure");

    /** Time lost to faults, all causes. */
    public Duration lost() {
        return detection.plus(recovery).plus(restart).plus(redone);
    }

    /** All the time counted: productive, lost and unattributed. */
    public Duration elapsed() {
        return productive.plus(lost()).plus(unattributed);
    }

    public Duration lost(String cause) {
        return switch (cause) {
            case "detection" -> detection;
            case "recovery" -> recovery;
            case "restart" -> restart;
            case "redone" -> redone;
            default -> throw new IllegalArgumentException("no such cause of lost time: " + cause);
        };
    }

    /** Productive over elapsed, 0 to 1; empty before any time was counted. */
    public Optional<Double> ratio() {
        long all = elapsed().toMillis();
        return all == 0 ? Optional.empty() : Optional.of(productive.toMillis() / (double) all);
    }

    /** The ratio were all unattributed time productive: the most the goodput can be. */
    public Optional<Double> ratioAtMost() {
        long all = elapsed().toMillis();
        return all == 0
                ? Optional.empty()
                : Optional.of(productive.plus(unattributed).toMillis() / (double) all);
    }

    /** This less {@code before}, cause by cause (never below zero). */
    public Goodput since(Goodput before) {
        return new Goodput(
                minus(productive, before.productive),
                minus(detection, before.detection),
                minus(recovery, before.recovery),
                minus(restart, before.restart),
                minus(redone, before.redone),
                minus(unattributed, before.unattributed),
                Math.max(0, faults - before.faults),
                Math.max(0, unmeasuredDetections - before.unmeasuredDetections));
    }

    private static Duration minus(Duration a, Duration b) {
        Duration d = a.minus(b);
        return d.isNegative() ? Duration.ZERO : d;
    }

    /**
     * The goodput of the timeline's events, in order, as of {@code now} (the end of what still
     * runs); with {@code settled}, only what is over.
     */
    public static Goodput of(List<EventHistory.Event> events, Instant now, boolean settled) {
        List<Attempt> attempts = attempts(events);
        Tally tally = new Tally();
        for (int i = 0; i < attempts.size(); i++) {
            Attempt a = attempts.get(i);
            Attempt previous = i == 0 ? null : attempts.get(i - 1);
            Optional<Instant> nextLaunch =
                    i + 1 < attempts.size() ? Optional.of(attempts.get(i + 1).launch) : Optional.empty();
            a.count(previous != null && previous.fault(), nextLaunch, now, settled, tally);
        }
        return tally.result();
    }

    private static List<Attempt> attempts(List<EventHistory.Event> events) {
        List<Attempt> attempts = new ArrayList<>();
        Attempt current = null;
        // The rules watch from srun's start, the launch is written a moment later: a first beat may come first.
        EventHistory.Event early = null;
        for (EventHistory.Event e : events) {
            if (e.event().equals(EventHistory.Kind.LAUNCH.word())) {
                current = new Attempt(e.attempt(), e.at(), e.details().get("progressBy"));
                attempts.add(current);
                if (early != null && early.attempt() == e.attempt()) {
                    current.add(early);
                }
                early = null;
            } else if (e.event().equals(EventHistory.Kind.PROGRESS.word())
                    && (current == null || current.number != e.attempt())) {
                early = e;
            } else if (current != null) {
                current.add(e);
            }
        }
        return attempts;
    }

    /** One attempt's events: from its launch to the next. */
    private static final class Attempt {
        final int number;
        final Instant launch;
        /** What could show progress: null for a timeline older than the field (not known). */
        final String progressBy;

        Instant progress;
        Instant detection;
        Instant lastHealthy;
        boolean unmeasured;
        Instant ended;
        String outcome;
        /** The checkpoint rule's word at the end: an instant, "none", or null without the rule. */
        String checkpointAt;

        Instant closedAt;

        Attempt(int number, Instant launch, String progressBy) {
            this.number = number;
            this.launch = launch;
            this.progressBy = progressBy;
        }

        void add(EventHistory.Event e) {
            String word = e.event();
            if (word.equals(EventHistory.Kind.PROGRESS.word()) && progress == null && ended == null) {
                progress = instant(e.details().get("signAt")).orElse(e.at());
            } else if (word.equals(EventHistory.Kind.DETECTION.word()) && detection == null) {
                detection = e.at();
                if (e.latencyMs().isPresent()) {
                    lastHealthy = e.at().minusMillis(e.latencyMs().getAsLong());
                } else {
                    lastHealthy = e.at();
                    unmeasured = true;
                }
            } else if (word.equals(EventHistory.Kind.ATTEMPT_ENDED.word()) && ended == null) {
                ended = e.at();
                outcome = e.details().get("outcome");
                checkpointAt = e.details().get("checkpointAt");
            } else if (FINAL.contains(word) && closedAt == null) {
                closedAt = e.at();
            }
        }

        /** Ended by a fault, or, still running, being ended for one a detection found. */
        boolean fault() {
            if (ended == null) {
                return detection != null;
            }
            return (FAULTS.contains(outcome) || detection != null) && !"SUCCEEDED".equals(outcome);
        }

        boolean canShowProgress() {
            return progressBy != null && !progressBy.isBlank();
        }

        void count(boolean relaunch, Optional<Instant> nextLaunch, Instant now, boolean settled, Tally tally) {
            if (ended == null && (settled || nextLaunch.isPresent())) {
                return; // still running (or its end was never written): nothing of it is over
            }
            Instant end = ended != null ? ended : later(now, launch);
            if ("NOT_STARTED".equals(outcome)) {
                // srun never started the step: the whole attempt is the wait for slurmctld
                tally.recovery = tally.recovery.plus(between(launch, end));
                countRecovery(end, nextLaunch, now, settled, tally);
                return;
            }
            boolean fault = fault();
            Instant healthyUntil = fault ? clamp(lastHealthy == null ? end : lastHealthy, launch, end) : end;
            // Where the work starts: at the launch, or after a relaunch at the first progress.
            Instant workFrom = launch;
            if (relaunch) {
                if (progress != null) {
                    workFrom = clamp(progress, launch, healthyUntil);
                    tally.restart = tally.restart.plus(between(launch, workFrom));
                } else if (canShowProgress()) {
                    workFrom = healthyUntil; // it never showed progress: all of it was restart
                    tally.restart = tally.restart.plus(between(launch, workFrom));
                } else {
                    // Restart and work cannot be told apart; and with a fault, neither can work and redone work.
                    tally.unattributed = tally.unattributed.plus(between(launch, healthyUntil));
                    workFrom = healthyUntil;
                }
            }
            Duration work = between(workFrom, healthyUntil);
            if (fault) {
                tally.faults++;
                if (checkpointAt == null) {
                    tally.unattributed = tally.unattributed.plus(work);
                } else {
                    Instant redoFrom = later(instant(checkpointAt).orElse(workFrom), workFrom);
                    Duration redone = between(clamp(redoFrom, workFrom, healthyUntil), healthyUntil);
                    tally.redone = tally.redone.plus(redone);
                    tally.productive = tally.productive.plus(work.minus(redone));
                }
                Instant detected = detection == null ? end : later(detection, healthyUntil);
                tally.detection = tally.detection.plus(between(healthyUntil, detected));
                if (unmeasured) {
                    tally.unmeasuredDetections++;
                }
                countRecovery(detected, nextLaunch, now, settled, tally);
            } else {
                tally.productive = tally.productive.plus(work);
            }
        }

        /** From {@code from} to the next launch; with none, to the step's last word, or now while undecided. */
        private void countRecovery(
                Instant from, Optional<Instant> nextLaunch, Instant now, boolean settled, Tally tally) {
            Optional<Instant> until = nextLaunch.or(() -> Optional.ofNullable(closedAt));
            if (until.isEmpty() && !settled) {
                until = Optional.of(now);
            }
            until.ifPresent(u -> tally.recovery = tally.recovery.plus(between(from, u)));
        }
    }

    private static final class Tally {
        Duration productive = Duration.ZERO;
        Duration detection = Duration.ZERO;
        Duration recovery = Duration.ZERO;
        Duration restart = Duration.ZERO;
        Duration redone = Duration.ZERO;
        Duration unattributed = Duration.ZERO;
        int faults;
        int unmeasuredDetections;

        Goodput result() {
            return new Goodput(
                    productive, detection, recovery, restart, redone, unattributed, faults, unmeasuredDetections);
        }
    }

    private static Optional<Instant> instant(String text) {
        if (text == null || text.isEmpty() || text.equals("none")) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(text));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static Duration between(Instant from, Instant to) {
        return to.isAfter(from) ? Duration.between(from, to) : Duration.ZERO;
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    private static Instant clamp(Instant t, Instant low, Instant high) {
        return t.isBefore(low) ? low : t.isAfter(high) ? high : t;
    }
}
