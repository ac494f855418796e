package org.slurmautoresume.supervisor.policy;

import java.util.OptionalInt;

/**
 * What is left after a decision was taken into account, for the log and the history.
 *
 * @param stepRestartsLeft         of {@code jobMaxRetryCount}
 * @param stepRestartsInWindow     step restarts counted toward escalation (within
 *                                 {@code evalPeriodSeconds}, since the last requeue)
 * @param stepRestartsBeforeRequeue how many more before a fault escalates; empty when it never does
 * @param fullJobRestartsLeft      of {@code maxFullJobRestarts}
 */
public record Budget(
        int stepRestartsLeft,
        int stepRestartsInWindow,
        OptionalInt stepRestartsBeforeRequeue,
        int fullJobRestartsLeft) {

    @Override
    public String toString() {
        return stepRestartsLeft + " step restarts left (jobMaxRetryCount), "
                + (stepRestartsBeforeRequeue.isPresent()
                        ? stepRestartsBeforeRequeue.getAsInt() + " before a requeue (numRestartBeforeFullJobRestart), "
                        : "")
                + fullJobRestartsLeft + " requeues left (maxFullJobRestarts)";
    }
}
