package org.slurmautoresume.supervisor.policy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Decides what to do about a fault from the policy and the restarts already made. Pure: no
 * clock, no Slurm, no state; the same inputs always give the same decision.
 *
 * <p>The strategies are walked in the job's order. RETRY applies to application failures and
 * rule violations, RECOVER to node faults; both are step restarts and need
 * {@code jobMaxRetryCount} left and, when {@code numRestartBeforeFullJobRestart} is set, fewer
 * than that many step restarts within {@code evalPeriodSeconds} since the last requeue.
 * REQUEUE applies to every fault while {@code maxFullJobRestarts} lasts. EXIT, or the end of
 * the list, gives up. DUMP is not walked: when listed, it precedes whatever is chosen if the
 * step still runs.
 */
public final class RestartPolicyEvaluator {

    private RestartPolicyEvaluator() {}

    public static Decision decide(Fault fault, List<RestartRecord> history, RestartPolicy policy) {
        Counts counts = Counts.of(history, fault.at(), policy);
        List<String> passedOver = new ArrayList<>();
        Optional<DumpSettings> dump = policy.strategies().contains(Strategy.DUMP) && fault.stepStillRunning()
                ? Optional.of(policy.dump())
                : Optional.empty();
        for (Strategy strategy : policy.strategies()) {
            switch (strategy) {
                case DUMP:
                    continue;
                case RETRY:
                case RECOVER: {
                    String refusal = stepRestartRefusal(strategy, fault.kind(), counts, policy);
                    if (refusal == null) {
                        RestartLevel level = strategy == Strategy.RETRY
                                ? RestartLevel.RERUN_IN_PLACE
                                : RestartLevel.REPLACE_NODES_AND_RERUN;
                        String why = (strategy == Strategy.RETRY
                                        ? "re-run the step on the same nodes"
                                        : "replace the faulty nodes and re-run the step")
                                + " after " + describe(fault)
                                + ", step restart " + (counts.stepTotal + 1) + " of " + policy.jobMaxRetryCount();
                        return new Decision(strategy, level, why, passedOver, dump, counts.after(level, policy));
                    }
                    passedOver.add(refusal);
                    continue;
                }
                case REQUEUE: {
                    if (counts.fullTotal < policy.maxFullJobRestarts()) {
                        String why = "requeue the whole job after " + describe(fault) + ", requeue "
                                + (counts.fullTotal + 1) + " of " + policy.maxFullJobRestarts()
                                + (passedOver.isEmpty() ? "" : ", as cheaper strategies are spent or do not apply");
                        return new Decision(
                                strategy,
                                RestartLevel.REQUEUE_JOB,
                                why,
                                passedOver,
                                dump,
                                counts.after(RestartLevel.REQUEUE_JOB, policy));
                    }
                    passedOver.add("requeue: maxFullJobRestarts=" + policy.maxFullJobRestarts() + " used up");
                    continue;
                }
                case EXIT:
                    return giveUp("exit is next in the strategy list", fault, passedOver, dump, counts, policy);
                default:
                    throw new IllegalStateException("unhandled strategy " + strategy);
            }
        }
        return giveUp("no strategy in the list applies", fault, passedOver, dump, counts, policy);
    }

    private static Decision giveUp(
            String why,
            Fault fault,
            List<String> passedOver,
            Optional<DumpSettings> dump,
            Counts counts,
            RestartPolicy policy) {
        return new Decision(
                Strategy.EXIT,
                RestartLevel.GIVE_UP,
                "give up after " + describe(fault) + ": " + why,
                passedOver,
                dump,
                counts.after(RestartLevel.GIVE_UP, policy));
    }

    /** Null when the step restart may happen, else why not (starting with the strategy's name). */
    private static String stepRestartRefusal(Strategy strategy, FaultKind kind, Counts counts, RestartPolicy policy) {
        String name = strategy.configName() + ": ";
        boolean applies = strategy == Strategy.RETRY ? kind != FaultKind.NODE_FAULT : kind == FaultKind.NODE_FAULT;
        if (!applies) {
            return name
                    + (strategy == Strategy.RETRY ? "a node fault needs its nodes replaced" : "no node is at fault");
        }
        if (counts.stepTotal >= policy.jobMaxRetryCount()) {
            return name + "jobMaxRetryCount=" + policy.jobMaxRetryCount() + " used up";
        }
        OptionalInt limit = policy.numRestartBeforeFullJobRestart();
        if (limit.isPresent() && counts.stepInWindow >= limit.getAsInt()) {
            return name + counts.stepInWindow + " step restarts " + counts.windowWords(policy)
                    + " reached numRestartBeforeFullJobRestart=" + limit.getAsInt();
        }
        return null;
    }

    private static String describe(Fault fault) {
        String kind = switch (fault.kind()) {
            case APPLICATION_FAILURE -> "an application failure";
            case NODE_FAULT -> "a node fault";
            case RULE_VIOLATION -> "a rule violation";
        };
        return fault.description().isBlank() ? kind : kind + " (" + fault.description() + ")";
    }

    /** The history boiled down to the three numbers the budgets are about. */
    private record Counts(int stepTotal, int stepInWindow, int fullTotal, Instant lastRequeue) {

        static Counts of(List<RestartRecord> history, Instant now, RestartPolicy policy) {
            Instant lastRequeue = null;
            int stepTotal = 0;
            int fullTotal = 0;
            for (RestartRecord record : history) {
                if (record.level().isStepRestart()) {
                    stepTotal++;
                } else if (record.level() == RestartLevel.REQUEUE_JOB) {
                    fullTotal++;
                    if (lastRequeue == null || record.at().isAfter(lastRequeue)) {
                        lastRequeue = record.at();
                    }
                }
            }
            Instant windowStart = policy.evalPeriodSeconds().isPresent()
                    ? now.minusSeconds(policy.evalPeriodSeconds().getAsLong())
                    : Instant.MIN;
            if (lastRequeue != null && lastRequeue.isAfter(windowStart)) {
                windowStart = lastRequeue;
            }
            int inWindow = 0;
            for (RestartRecord record : history) {
                if (record.level().isStepRestart() && record.at().isAfter(windowStart)) {
                    inWindow++;
                }
            }
            return new Counts(stepTotal, inWindow, fullTotal, lastRequeue);
        }

        String windowWords(RestartPolicy policy) {
            String window = policy.evalPeriodSeconds().isPresent()
                    ? "within evalPeriodSeconds=" + policy.evalPeriodSeconds().getAsLong()
                    : "so far";
            return lastRequeue == null ? window : window + " since the last requeue";
        }

        Budget after(RestartLevel level, RestartPolicy policy) {
            int steps = stepTotal + (level.isStepRestart() ? 1 : 0);
            int window = level == RestartLevel.REQUEUE_JOB ? 0 : stepInWindow + (level.isStepRestart() ? 1 : 0);
            int full = fullTotal + (level == RestartLevel.REQUEUE_JOB ? 1 : 0);
            OptionalInt beforeRequeue = policy.numRestartBeforeFullJobRestart().isPresent()
                    ? OptionalInt.of(
                            Math.max(0, policy.numRestartBeforeFullJobRestart().getAsInt() - window))
                    : OptionalInt.empty();
            return new Budget(
                    Math.max(0, policy.jobMaxRetryCount() - steps),
                    window,
                    beforeRequeue,
                    Math.max(0, policy.maxFullJobRestarts() - full));
        }
    }
}
