package org.slurmautoresume.nodeops.sweep;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.slurmautoresume.nodeops.lemon.LemonRule;

/**
 * What the sweep repairs, after how long, and how much it may change in one pass. Read from a
 * policy file by {@link SweepPolicyLoader}; {@link #DEFAULTS} when there is none.
 *
 * @param escalateFailAfter   a node FAIL with Action:Replace for longer is set DOWN (the vendor's
 *                            last resort) once no job is on it; zero: never escalate
 * @param notRespondingAfter  a node DOWN and not responding for longer is handled as {@code notRespondingAction}
 * @param markNotResponding   true: mark such a node fail/Action:Replace; false: report it only
 * @param completingAfter     a node COMPLETING a job that ended longer ago is drained while other
 *                            jobs run there, and set DOWN (Action:Reboot) once none does
 * @param donorMaxAge         a job named like an expansion donor older than this is reported
 * @param resumeReturned      resume a marked node back under its hostname once its health check passes
 * @param resumeUnexpectedReboot resume a node DOWN for "Node unexpectedly rebooted" once its check passes
 * @param maxNodes            at most this many nodes changed in one sweep
 * @param maxPartitionPercent at most this share of any partition's nodes changed in one sweep
 * @param excludeNodes        a hostlist the sweep never changes (empty: none)
 * @param healthCommand       argv run to check a node, {@code {node}} replaced by its name;
 *                            empty: only probe that its slurmd accepts connections
 * @param healthTimeout       how long one health check may take
 * @param lemon               a node marked faulty this often is kept out instead of resumed
 */
public record SweepPolicy(
        Duration escalateFailAfter,
        Duration notRespondingAfter,
        boolean markNotResponding,
        Duration completingAfter,
        Duration donorMaxAge,
        boolean resumeReturned,
        boolean resumeUnexpectedReboot,
        int maxNodes,
        int maxPartitionPercent,
        String excludeNodes,
        List<String> healthCommand,
        Duration healthTimeout,
        LemonRule lemon) {

    public static final SweepPolicy DEFAULTS = new SweepPolicy(
            Duration.ofHours(2),
            Duration.ofMinutes(10),
            true,
            Duration.ofMinutes(15),
            Duration.ofSeconds(300),
            true,
            true,
            10,
            25,
            "",
            List.of(),
            Duration.ofSeconds(120),
            LemonRule.DEFAULT);

    public SweepPolicy {
        healthCommand = List.copyOf(healthCommand);
        Objects.requireNonNull(lemon, "lemon");
    }

    /**
     * The cap for a partition of {@code size} nodes: the percentage rounded down, but at least
     * one node (else a partition of fewer than 100/P nodes could never be repaired); zero when
     * the percentage is zero, which keeps the sweep off every node.
     */
    public int partitionCap(int size) {
        if (maxPartitionPercent == 0 || size == 0) {
            return 0;
        }
        return (int) Math.max(1, (long) size * maxPartitionPercent / 100);
    }
}
