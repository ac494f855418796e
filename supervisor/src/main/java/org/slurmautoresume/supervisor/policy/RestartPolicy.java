package org.slurmautoresume.supervisor.policy;

import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Seed 001's {@code runPolicy} budgets plus the ordered strategies of seed 003.
 *
 * @param jobMaxRetryCount               step restarts (in place or on replaced nodes) allowed over
 *                                       the job's whole life
 * @param numRestartBeforeFullJobRestart step restarts allowed within {@code evalPeriodSeconds}
 *                                       (and since the last requeue) before the next fault
 *                                       escalates to a requeue; absent: never escalate by count
 * @param evalPeriodSeconds              the sliding window for that count; absent: the whole life
 * @param maxFullJobRestarts             requeues allowed over the job's whole life
 * @param strategies                     what may be tried, in order
 * @param dump                           how {@code dump} signals and waits
 */
public record RestartPolicy(
        int jobMaxRetryCount,
        OptionalInt numRestartBeforeFullJobRestart,
        OptionalLong evalPeriodSeconds,
        int maxFullJobRestarts,
        List<Strategy> strategies,
        DumpSettings dump) {

    public static final int DEFAULT_JOB_MAX_RETRY_COUNT = 2;
    public static final int DEFAULT_MAX_FULL_JOB_RESTARTS = 0;
    public static final List<Strategy> DEFAULT_STRATEGIES =
            List.of(Strategy.RETRY, Strategy.RECOVER, Strategy.REQUEUE, Strategy.EXIT);

    /** What a job gets with no configuration at all. */
    public static final RestartPolicy DEFAULT = new RestartPolicy(
            DEFAULT_JOB_MAX_RETRY_COUNT,
            OptionalInt.empty(),
            OptionalLong.empty(),
            DEFAULT_MAX_FULL_JOB_RESTARTS,
            DEFAULT_STRATEGIES,
            DumpSettings.DEFAULT);

    public RestartPolicy {
        if (jobMaxRetryCount < 0 || maxFullJobRestarts < 0) {
            throw new IllegalArgumentException("restart counts must be 0 or more");
        }
        if (numRestartBeforeFullJobRestart.isPresent() && numRestartBeforeFullJobRestart.getAsInt() < 0) {
            throw new IllegalArgumentException("numRestartBeforeFullJobRestart must be 0 or more");
        }
        if (evalPeriodSeconds.isPresent() && evalPeriodSeconds.getAsLong() <= 0) {
            throw new IllegalArgumentException("evalPeriodSeconds must be positive");
        }
        strategies = List.copyOf(strategies);
        if (strategies.isEmpty()) {
            throw new IllegalArgumentException("at least one strategy");
        }
        Objects.requireNonNull(dump, "dump");
    }
}
