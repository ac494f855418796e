package org.slurmautoresume.supervisor.step.restart;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.supervisor.policy.FaultKind;
import org.slurmautoresume.supervisor.rules.RuleState;
import org.slurmautoresume.supervisor.rules.RuleViolation;
import org.slurmautoresume.supervisor.step.diagnosis.Classification;
import org.slurmautoresume.supervisor.step.diagnosis.Outcome;

/** What an attempt's end calls for, as a function of what was seen. */
class EndOfAttemptTest {

    private static final Attempt.RuleStop HANG = new Attempt.RuleStop(hanging(), null, null, true);

    private static RuleViolation hanging() {
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
}
