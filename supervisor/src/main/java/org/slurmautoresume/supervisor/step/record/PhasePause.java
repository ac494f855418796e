package org.slurmautoresume.supervisor.step.record;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A fault-injection hook for tests of recovery under outages: the supervisor stops once at the
 * start of each named recovery phase until a file appears, so that a test can take slurmctld (or
 * the agent, or slurmdbd) away exactly then and let the phase meet the outage. Set by the job's
 * environment, {@code AUTORESUME_TEST_PAUSE_AT=PHASE[,PHASE...]} and
 * {@code AUTORESUME_TEST_PAUSE_UNTIL=PREFIX}: at PHASE the supervisor waits for the file
 * {@code PREFIX.PHASE}. Each pause is recorded on the timeline ({@code pause}, with the phase)
 * before it waits, and lasts at most {@link #LONGEST}. It only ever delays the user's own job's
 * recovery, which the user can do anyway; without both variables it does nothing.
 */
public final class PhasePause {

    static final String AT = "AUTORESUME_TEST_PAUSE_AT";
    static final String UNTIL = "AUTORESUME_TEST_PAUSE_UNTIL";
    /** However the test fares, the job's recovery goes on after this. */
    static final Duration LONGEST = Duration.ofMinutes(10);

    private static final long POLL_MS = 50;

    /** Where a recovery can be paused, in the order a dead node's recovery passes them. */
    public enum Phase {
        /** Before the supervisor first asks Slurm for the step srun created (each attempt). */
        LOOKUP,
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
    public static final PhasePause NONE = new PhasePause(Set.of(), "", null);

    private final Set<Phase> phases;
    private final String until;
    private final JobTimeline timeline;
    private final Set<Phase> passed = EnumSet.noneOf(Phase.class);

    private PhasePause(Set<Phase> phases, String until, JobTimeline timeline) {
        this.phases = phases;
        this.until = until;
        this.timeline = timeline;
    }

    /** From the job's environment; both variables or neither, else the mistake is named. */
    public static PhasePause fromEnvironment(Map<String, String> env, JobTimeline timeline) {
        String at = env.getOrDefault(AT, "").strip();
        String prefix = env.getOrDefault(UNTIL, "").strip();
        if (at.isEmpty() && prefix.isEmpty()) {
            return NONE;
        }
        if (at.isEmpty() || prefix.isEmpty() || !Path.of(prefix).isAbsolute()) {
            throw new IllegalArgumentException(
                    AT + " and " + UNTIL + " go together: phases and an absolute path prefix");
        }
        Set<Phase> phases = EnumSet.noneOf(Phase.class);
        for (String word : at.split(",", -1)) {
            phases.add(Arrays.stream(Phase.values())
                    .filter(p -> p.word().equals(word.strip()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(AT + " takes phases among "
                            + Arrays.stream(Phase.values()).map(Phase::word).collect(Collectors.joining(", ")) + ": \""
                            + at + "\"")));
        }
        return new PhasePause(Set.copyOf(phases), prefix, timeline);
    }

    /** At {@code reached}: the first time at a configured phase, waits until {@code PREFIX.PHASE} exists. */
    public void at(Phase reached) {
        synchronized (passed) {
            if (!phases.contains(reached) || !passed.add(reached)) {
                return;
            }
        }
        timeline.record(EventHistory.Kind.PAUSE, OptionalLong.empty(), "phase", reached.word());
        Path go = Path.of(until + "." + reached.word());
        long deadline = System.nanoTime() + LONGEST.toNanos();
        try {
            while (!Files.exists(go) && System.nanoTime() < deadline) {
                Thread.sleep(POLL_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
