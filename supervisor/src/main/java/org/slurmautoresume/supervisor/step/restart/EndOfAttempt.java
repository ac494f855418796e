package org.slurmautoresume.supervisor.step.restart;

import java.util.Optional;
import org.slurmautoresume.supervisor.policy.FaultKind;
import org.slurmautoresume.supervisor.rules.RuleViolation;
import org.slurmautoresume.supervisor.step.diagnosis.Classification;
import org.slurmautoresume.supervisor.step.diagnosis.Outcome;

/**
 * What an attempt's end calls for, worked out from what was seen alone: no Slurm call, nothing
 * changed. The attempt loop carries it out (the restart policy, the restart actions).
 */
public sealed interface EndOfAttempt {

    /** A log rule ended the step: the decision taken when it fired is carried out; {@code what} names it. */
    record RuleDecided(Attempt.RuleStop rule, String what) implements EndOfAttempt {}

    /** The step succeeded. */
    record Succeeded() implements EndOfAttempt {}

    /** A fault, but the supervisor was told to stop: it ends with the step's status. */
    record StopInstead(String what) implements EndOfAttempt {}

    /** A fault of {@code kind} the restart policy decides about; {@code what} names it for the log. */
    record Restartable(FaultKind kind, String what) implements EndOfAttempt {}

    /**
     * The last attempts failed the same way, as many in a row as the limit allows: not re-run,
     * whatever budget is left, and not requeued either (the same job would fail the same way);
     * {@code what} names the failure, {@code run} the attempts and how they failed.
     */
    record RepeatedFailure(FaultKind kind, String what, SameFailures run) implements EndOfAttempt {}

    /** srun could not start the step: it starts again once slurmctld answers, no budget spent. */
    record NotStarted() implements EndOfAttempt {}

    /** An end that is not re-run (cancelled, time limit, preempted, requeued, interrupted), said as {@code what}. */
    record NotRerun(String what) implements EndOfAttempt {}

    /**
     * @param result        how the attempt ended, the watch's and the agents' findings included
     * @param ruleEnded     the rule that ended the step, when one did
     * @param stopRequested whether the supervisor was told to stop
     */
    static EndOfAttempt of(Classification result, Optional<Attempt.RuleStop> ruleEnded, boolean stopRequested) {
        return of(result, ruleEnded, stopRequested, SameFailures.NONE, 0);
    }

    /**
     * As {@link #of(Classification, Optional, boolean)}, with the restart loop guard: when
     * {@code run}, the same failures in a row up to this attempt, reached {@code limit} (0: no
     * guard), a fault that would be restarted or requeued ends the step instead.
     */
    static EndOfAttempt of(
            Classification result,
            Optional<Attempt.RuleStop> ruleEnded,
            boolean stopRequested,
            SameFailures run,
            int limit) {
        EndOfAttempt verdict = withoutLoopGuard(result, ruleEnded, stopRequested);
        if (!run.reached(limit)) {
            return verdict;
        }
        if (verdict instanceof RuleDecided rule && !rule.rule().decision().givesUp()) {
            return new RepeatedFailure(rule.rule().fault().kind(), rule.what(), run);
        }
        if (verdict instanceof Restartable restartable && restartable.kind() != FaultKind.NODE_FAULT) {
            return new RepeatedFailure(restartable.kind(), restartable.what(), run);
        }
        return verdict;
    }

    private static EndOfAttempt withoutLoopGuard(
            Classification result, Optional<Attempt.RuleStop> ruleEnded, boolean stopRequested) {
        if (ruleEnded.isPresent() && !stopRequested && result.outcome() != Outcome.NODE_FAULT) {
            // We ended the step ourselves because a log rule fired: its decision was taken then.
            RuleViolation violation = ruleEnded.get().violation();
            return new RuleDecided(ruleEnded.get(), violation.title() + " is " + violation.state());
        }
        switch (result.outcome()) {
            case SUCCEEDED:
                return new Succeeded();
            case APP_FAILURE:
            case NODE_FAULT: {
                boolean node = result.outcome() == Outcome.NODE_FAULT;
                String what = (node ? "node fault: " : "application failure: ") + result.reason();
                return stopRequested
                        ? new StopInstead(what)
                        : new Restartable(node ? FaultKind.NODE_FAULT : FaultKind.APPLICATION_FAILURE, what);
            }
            case NOT_STARTED:
                return new NotStarted();
            default:
                return new NotRerun(describe(result));
        }
    }

    private static String describe(Classification result) {
        return switch (result.outcome()) {
            case CANCELLED -> "step cancelled: " + result.reason();
            case TIME_LIMIT -> "time limit: " + result.reason();
            case PREEMPTED -> "preempted: " + result.reason();
            case REQUEUED -> "requeued: " + result.reason();
            case INTERRUPTED -> "interrupted: " + result.reason();
            default -> result.outcome() + ": " + result.reason();
        };
    }
}
