package org.slurmautoresume.supervisor.rules;

/**
 * Where one log rule stands. WAITING and HEALTHY are fine; the other three are violations, and
 * a violation ends the attempt and is handed to the restart policy.
 */
public enum RuleState {
    /** No line has matched {@code logPattern} yet in this attempt. */
    WAITING(false),
    /** The pattern matched, on time, and the metric (if any) is within its threshold. */
    HEALTHY(false),
    /**
     * The metric breached {@code metricThreshold} on {@code metricEvaluationDataPoints}
     * consecutive matching lines: the job runs, but too slowly or badly.
     */
    SLOW(true),
    /**
     * No match within {@code expectedStartCutOffInSeconds} of the start, or none within
     * {@code expectedRecurringFrequencyInSeconds} of the previous match: the job stopped progressing.
     */
    HANGING(true),
    /**
     * The metric could not be read at all (the capture group held {@code nan}, {@code inf} or
     * text) on {@code metricEvaluationDataPoints} consecutive matching lines.
     */
    FAULTED(true);

    private final boolean violation;

    RuleState(boolean violation) {
        this.violation = violation;
    }

    public boolean isViolation() {
        return violation;
    }
}
