package org.slurmautoresume.supervisor.rules;

/**
 * A hang found without writing a log rule: the training loop prints one line,
 * {@code AUTORESUME_HEARTBEAT}, per step (any language can; examples/sbatch/autoresume_heartbeat.py
 * does it for Python), and {@code AUTORESUME_HEARTBEAT phase=checkpoint} before it starts
 * writing a checkpoint. The step hangs when the first beat does not come within the start-up
 * timeout, the next within the steady timeout, or, after a checkpoint beat, within the
 * checkpoint timeout. It is a log rule like the others (same detection, dump and decision),
 * named {@value #NAME}, with timeouts per phase.
 *
 * @param startupTimeoutSeconds    the first beat must come within this long of the start
 * @param steadyTimeoutSeconds     then each beat within this long of the one before
 * @param checkpointTimeoutSeconds after a beat that says {@value #CHECKPOINT}, the next within this long
 */
public record Heartbeat(long startupTimeoutSeconds, long steadyTimeoutSeconds, long checkpointTimeoutSeconds) {

    /** The rule's name in reports, the timeline and the metrics. */
    public static final String NAME = "Heartbeat";
    /** What a heartbeat line holds, anywhere in it (srun --label puts "0: " before it). */
    public static final String MARKER = "AUTORESUME_HEARTBEAT";
    /** The rule's pattern: the marker anywhere in the line. */
    public static final String PATTERN = ".*" + MARKER + ".*";
    /** What a heartbeat line holds when a checkpoint begins. */
    public static final String CHECKPOINT = "phase=checkpoint";
    /** The seed's own figures: 10 minutes to start, 5 between steps, 30 for a checkpoint. */
    public static final Heartbeat DEFAULTS = new Heartbeat(600, 300, 1800);

    public Heartbeat {
        if (startupTimeoutSeconds <= 0 || steadyTimeoutSeconds <= 0 || checkpointTimeoutSeconds <= 0) {
            throw new IllegalArgumentException("heartbeat timeouts must be positive");
        }
    }

    /** Whether {@code rule} is the heartbeat's, not a log rule of the user's that took its name. */
    public static boolean watches(LogRule rule) {
        return rule.name().equals(NAME) && rule.logPattern().equals(PATTERN);
    }

    /** The log rule that watches the beats. */
    public LogRule rule() {
        return LogRule.builder(NAME, PATTERN)
                .expectedStartCutOffInSeconds(startupTimeoutSeconds)
                .expectedRecurringFrequencyInSeconds(steadyTimeoutSeconds)
                .longerWaitAfter(CHECKPOINT, checkpointTimeoutSeconds)
                .build();
    }
}
