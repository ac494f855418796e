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
