package org.slurmautoresume.supervisor.step.restart;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.supervisor.policy.Budget;
import org.slurmautoresume.supervisor.policy.Decision;
import org.slurmautoresume.supervisor.policy.Fault;
import org.slurmautoresume.supervisor.policy.FaultKind;
import org.slurmautoresume.supervisor.policy.RestartLevel;
import org.slurmautoresume.supervisor.policy.Strategy;
import org.slurmautoresume.supervisor.rules.RuleState;
import org.slurmautoresume.supervisor.rules.RuleViolation;
import org.slurmautoresume.supervisor.step.diagnosis.Classification;
import org.slurmautoresume.supervisor.step.diagnosis.FailureSignature;
import org.slurmautoresume.supervisor.step.diagnosis.Outcome;

/** What an attempt's end calls for, as a function of what was seen. */
class EndOfAttemptTest {

    private static final Optional<FailureSignature> SIGNATURE =
            FailureSignature.ofOutput(1, List.of("RuntimeError: CUDA error"), List.of());

    private static final Attempt.RuleStop HANG = new Attempt.RuleStop(hanging(), null, null, true);

    /** A log rule's HANGING violation, as the restart tests of this package take one. */
    static RuleViolation hanging() {
        Instant now = Instant.now();
        return new RuleViolation(
                "Beat",
                RuleState.HANGING,
                "no line in 1 s",
                now.minusSeconds(1),
                now,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                0,
                List.of(),
                RuleViolation.Source.LOG_RULE);
    }

    private static Classification ended(Outcome outcome) {
        return new Classification(outcome, "why", outcome == Outcome.NODE_FAULT ? List.of("node2") : List.of());
    }

    @Test
    void aFailureOnHealthyOrFaultyNodesGoesToThePolicyUnlessTheSupervisorWasToldToStop() {
        assertEquals(
                new EndOfAttempt.Restartable(FaultKind.APPLICATION_FAILURE, "application failure: why"),
                EndOfAttempt.of(ended(Outcome.APP_FAILURE), Optional.empty(), false));
        assertEquals(
                new EndOfAttempt.Restartable(FaultKind.NODE_FAULT, "node fault: why"),
                EndOfAttempt.of(ended(Outcome.NODE_FAULT), Optional.empty(), false));
        assertEquals(
                new EndOfAttempt.StopInstead("node fault: why"),
                EndOfAttempt.of(ended(Outcome.NODE_FAULT), Optional.empty(), true));
    }

    @Test
    void aRuleThatEndedTheStepDecidesUnlessANodeFaultWasFoundOrTheSupervisorWasToldToStop() {
        assertEquals(
                new EndOfAttempt.RuleDecided(HANG, "log rule \"Beat\" is HANGING"),
                EndOfAttempt.of(ended(Outcome.SUCCEEDED), Optional.of(HANG), false),
                "even exit 0 after a dump is the rule's doing");
        assertEquals(
                new EndOfAttempt.RuleDecided(HANG, "log rule \"Beat\" is HANGING"),
                EndOfAttempt.of(ended(Outcome.CANCELLED), Optional.of(HANG), false));
        assertEquals(
                new EndOfAttempt.Restartable(FaultKind.NODE_FAULT, "node fault: why"),
                EndOfAttempt.of(ended(Outcome.NODE_FAULT), Optional.of(HANG), false),
                "a node found faulty meanwhile is repaired as a node fault");
        assertEquals(
                new EndOfAttempt.NotRerun("step cancelled: why"),
                EndOfAttempt.of(ended(Outcome.CANCELLED), Optional.of(HANG), true));
    }

    @Test
    void successAnUnstartedStepAndEndsThatAreNotRerun() {
        assertEquals(new EndOfAttempt.Succeeded(), EndOfAttempt.of(ended(Outcome.SUCCEEDED), Optional.empty(), false));
        assertEquals(
                new EndOfAttempt.NotStarted(), EndOfAttempt.of(ended(Outcome.NOT_STARTED), Optional.empty(), false));
        assertEquals(
                new EndOfAttempt.NotRerun("time limit: why"),
                EndOfAttempt.of(ended(Outcome.TIME_LIMIT), Optional.empty(), false));
        assertEquals(
                new EndOfAttempt.NotRerun("preempted: why"),
                EndOfAttempt.of(ended(Outcome.PREEMPTED), Optional.empty(), false));
    }

    private static final SameFailures THREE_ALIKE =
            SameFailures.NONE.after(1, SIGNATURE).after(2, SIGNATURE).after(3, SIGNATURE);

    private static Attempt.RuleStop ruleDecided(RestartLevel level) {
        Decision decision = new Decision(
                level == RestartLevel.GIVE_UP ? Strategy.EXIT : Strategy.RETRY,
                level,
                "why",
                List.of(),
                Optional.empty(),
                new Budget(1, 0, OptionalInt.empty(), 0));
        return new Attempt.RuleStop(
                hanging(), new Fault(FaultKind.RULE_VIOLATION, Instant.now(), true, "Beat HANGING"), decision, true);
    }

    @Test
    void theSameFailureTheLimitsNumberOfTimesInARowIsNotRestarted() {
        assertEquals(
                new EndOfAttempt.RepeatedFailure(
                        FaultKind.APPLICATION_FAILURE, "application failure: why", THREE_ALIKE),
                EndOfAttempt.of(ended(Outcome.APP_FAILURE), Optional.empty(), false, THREE_ALIKE, 3));
        assertEquals(
                new EndOfAttempt.Restartable(FaultKind.APPLICATION_FAILURE, "application failure: why"),
                EndOfAttempt.of(ended(Outcome.APP_FAILURE), Optional.empty(), false, THREE_ALIKE, 4),
                "one short of the limit");
        assertEquals(
                new EndOfAttempt.Restartable(FaultKind.APPLICATION_FAILURE, "application failure: why"),
                EndOfAttempt.of(ended(Outcome.APP_FAILURE), Optional.empty(), false, THREE_ALIKE, 0),
                "0 turns the limit off");
    }

    @Test
    void aRuleThatEndsTheStepTheSameWayAgainAndAgainIsNotRestartedNorRequeued() {
        for (RestartLevel level : List.of(RestartLevel.RERUN_IN_PLACE, RestartLevel.REQUEUE_JOB)) {
            Attempt.RuleStop rule = ruleDecided(level);
            assertEquals(
                    new EndOfAttempt.RepeatedFailure(
                            FaultKind.RULE_VIOLATION, "log rule \"Beat\" is HANGING", THREE_ALIKE),
                    EndOfAttempt.of(ended(Outcome.CANCELLED), Optional.of(rule), false, THREE_ALIKE, 3),
                    level.name());
        }
        Attempt.RuleStop givesUp = ruleDecided(RestartLevel.GIVE_UP);
        assertEquals(
                new EndOfAttempt.RuleDecided(givesUp, "log rule \"Beat\" is HANGING"),
                EndOfAttempt.of(ended(Outcome.CANCELLED), Optional.of(givesUp), false, THREE_ALIKE, 3),
                "a rule that gives up anyway is its own decision");
    }

    @Test
    void aNodeFaultAStopOrASuccessIsWhatItIsWhateverCameBefore() {
        assertEquals(
                new EndOfAttempt.Restartable(FaultKind.NODE_FAULT, "node fault: why"),
                EndOfAttempt.of(ended(Outcome.NODE_FAULT), Optional.empty(), false, THREE_ALIKE, 3));
        assertEquals(
                new EndOfAttempt.StopInstead("application failure: why"),
                EndOfAttempt.of(ended(Outcome.APP_FAILURE), Optional.empty(), true, THREE_ALIKE, 3));
        assertEquals(
                new EndOfAttempt.Succeeded(),
                EndOfAttempt.of(ended(Outcome.SUCCEEDED), Optional.empty(), false, THREE_ALIKE, 3));
    }
}
