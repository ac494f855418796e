package org.slurmautoresume.supervisor.step.restart;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slurmautoresume.supervisor.rules.RuleViolation;
import org.slurmautoresume.supervisor.step.diagnosis.Classification;
import org.slurmautoresume.supervisor.step.diagnosis.FailureSignature;
import org.slurmautoresume.supervisor.step.diagnosis.Outcome;

/**
 * The attempts in a row, up to the last one, that failed the same way: a restart loop in the
 * making. Only failures the application itself shows are compared (a failure on healthy nodes,
 * a log rule that ended the step): a node fault is the node's, and it breaks the run. Immutable:
 * the attempt loop holds the current one between attempts.
 *
 * @param signature how they failed; empty when the last attempt ended no run
 * @param attempts  the attempts' numbers, in order
 */
public record SameFailures(Optional<FailureSignature> signature, List<Integer> attempts) {

    public static final SameFailures NONE = new SameFailures(Optional.empty(), List.of());

    public SameFailures {
        attempts = List.copyOf(attempts);
    }

    /**
     * How an attempt failed, as far as a loop goes: the rule that ended it, else its last error
     * lines; empty for a success, a node fault, or a failure with no error line to go by.
     *
     * @param ruleEnded the rule that ended the attempt, when one did
     */
    public static Optional<FailureSignature> signatureOf(
            Classification result,
            Optional<Attempt.RuleStop> ruleEnded,
            int status,
            List<String> stderrTail,
            List<String> hosts) {
        if (result.outcome() == Outcome.NODE_FAULT) {
            return Optional.empty();
        }
        if (ruleEnded.isPresent()) {
            RuleViolation violation = ruleEnded.get().violation();
            return Optional.of(FailureSignature.ofRule(
                    status, violation.rule(), violation.state().name()));
        }
        return result.outcome() == Outcome.APP_FAILURE
                ? FailureSignature.ofOutput(status, stderrTail, hosts)
                : Optional.empty();
    }

    /** The run once attempt {@code number} ended with {@code seen}: one longer, a new one, or none. */
    public SameFailures after(int number, Optional<FailureSignature> seen) {
        if (seen.isEmpty()) {
            return NONE;
        }
        if (!seen.equals(signature)) {
            return new SameFailures(seen, List.of(number));
        }
        List<Integer> longer = new ArrayList<>(attempts);
        longer.add(number);
        return new SameFailures(seen, longer);
    }

    /** True when {@code limit} attempts in a row failed the same way; a limit of 0 is never reached. */
    public boolean reached(int limit) {
        return limit > 0 && signature.isPresent() && attempts.size() >= limit;
    }

    /** The attempts' numbers as the timeline lists them: {@code 1,2,3}. */
    public String attemptList() {
        return attempts.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
