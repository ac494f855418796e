package org.slurmautoresume.supervisor.step;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * A fault-injection hook for tests of recovery under outages: the supervisor stops once at the
 * start of one recovery phase until a file appears, so that a test can take slurmctld (or the
 * agent) away exactly then and let the phase meet the outage. Set by the job's environment,
 * {@code AUTORESUME_TEST_PAUSE_AT=PHASE} and {@code AUTORESUME_TEST_PAUSE_UNTIL=FILE}; the pause
 * is recorded on the timeline ({@code pause}, with the phase) before it waits, and lasts at most
 * {@link #LONGEST}. It only ever delays the user's own job's recovery, which the user can do
 * anyway; without both variables it does nothing.
 */
final class PhasePause {

    static final String AT = "AUTORESUME_TEST_PAUSE_AT";
    static final String UNTIL = "AUTORESUME_TEST_PAUSE_UNTIL";
    /** However the test fares, the job's recovery goes on after this. */
    static final Duration LONGEST = Duration.ofMinutes(10);
    private static final long POLL_MS = 50;

    /** Where a recovery can be paused, in the order a dead node's recovery passes them. */
    enum Phase {
        /** Before the agent is asked to confirm and mark the faulty nodes (its diagnosis, then its mark). */
        MARK,
        /** Before the faulty nodes are dropped from the job. */
        SHRINK,
        /** After an attempt ended, before Slurm's evidence and the agents' verdicts are read. */
        DIAGNOSIS,
        /** Before the nodes of the re-run (spare or replacement) and their variables are worked out. */
        REPLACEMENT,
        /** Before srun is started again. */
        RERUN;

        String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Does nothing: no pause was asked for. */
    static final PhasePause NONE = new PhasePause(Optional.empty(), Path.of(""), null);

    private final Optional<Phase> phase;
    private final Path until;
    private final JobTimeline timeline;
    private final AtomicBoolean used = new AtomicBoolean();

    private PhasePause(Optional<Phase> phase, Path until, JobTimeline timeline) {
        this.phase = phase;
        this.until = until;
        this.timeline = timeline;
    }

    /** From the job's environment; both variables or neither, else the mistake is named. */
    static PhasePause fromEnvironment(Map<String, String> env, JobTimeline timeline) {
        String at = env.getOrDefault(AT, "").strip();
        String file = env.getOrDefault(UNTIL, "").strip();
        if (at.isEmpty() && file.isEmpty()) {
            return NONE;
        }
        if (at.isEmpty() || file.isEmpty() || !Path.of(file).isAbsolute()) {
            throw new IllegalArgumentException(AT + " and " + UNTIL + " go together: a phase and an absolute file path");
        }
        Phase phase = Arrays.stream(Phase.values()).filter(p -> p.word().equals(at)).findFirst().orElseThrow(() ->
                new IllegalArgumentException(AT + " must be one of " + Arrays.stream(Phase.values()).map(Phase::word)
                        .collect(Collectors.joining(", ")) + ": \"" + at + "\""));
        return new PhasePause(Optional.of(phase), Path.of(file), timeline);
    }

    /** At {@code reached}: the first time it is the configured phase, waits until the file exists. */
    void at(Phase reached) {
        if (phase.isEmpty() || phase.get() != reached || used.getAndSet(true)) {
            return;
        }
        timeline.record(EventHistory.Kind.PAUSE, OptionalLong.empty(), "phase", reached.word());
        long deadline = System.nanoTime() + LONGEST.toNanos();
        try {
            while (!Files.exists(until) && System.nanoTime() < deadline) {
                Thread.sleep(POLL_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
