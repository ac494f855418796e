package org.slurmautoresume.supervisor.step.restart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.supervisor.rules.RuleViolation;
import org.slurmautoresume.supervisor.step.diagnosis.Classification;
import org.slurmautoresume.supervisor.step.diagnosis.FailureSignature;
import org.slurmautoresume.supervisor.step.diagnosis.Outcome;

/** The run of attempts that failed the same way, attempt by attempt. */
class SameFailuresTest {

    private static final Optional<FailureSignature> CUDA =
            FailureSignature.ofOutput(1, List.of("RuntimeError: CUDA error: an illegal memory access"), List.of());
    private static final Optional<FailureSignature> OOM =
            FailureSignature.ofOutput(1, List.of("torch.OutOfMemoryError: CUDA out of memory"), List.of());

    private static Classification ended(Outcome outcome) {
        return new Classification(outcome, "why", outcome == Outcome.NODE_FAULT ? List.of("node2") : List.of());
    }

    @Test
    void theSameFailureAttemptAfterAttemptReachesTheLimitOnItsThird() {
        SameFailures run = SameFailures.NONE.after(1, CUDA).after(2, CUDA);
        assertFalse(run.reached(3));

        run = run.after(3, CUDA);

        assertTrue(run.reached(3));
        assertEquals("1,2,3", run.attemptList());
        assertEquals(CUDA, run.signature());
    }

    @Test
    void differentFailuresInARowNeverReachIt() {
        SameFailures run = SameFailures.NONE;
        List<Optional<FailureSignature>> seen = List.of(CUDA, OOM, CUDA, OOM, CUDA, OOM);
        for (int i = 0; i < seen.size(); i++) {
            run = run.after(i + 1, seen.get(i));
            assertFalse(run.reached(2), "attempt " + (i + 1) + ": " + run);
        }
        assertEquals(List.of(6), run.attempts(), "a new run starts with each new failure");
    }

    @Test
    void aFailureWithoutASignatureEndsTheRun() {
        SameFailures run = SameFailures.NONE.after(1, CUDA).after(2, CUDA).after(3, Optional.empty());

        assertEquals(SameFailures.NONE, run);
        assertFalse(run.after(4, CUDA).reached(2), "counting starts again");
    }

    @Test
    void aLimitOfZeroIsNeverReached() {
        SameFailures run = SameFailures.NONE;
        for (int i = 1; i <= 50; i++) {
            run = run.after(i, CUDA);
        }
        assertFalse(run.reached(0));
        assertTrue(run.reached(50));
    }

    @Test
    void aNodeFaultHasNoSignatureWhateverTheApplicationPrinted() {
        List<String> stderr = List.of("RuntimeError: NCCL communicator was aborted on rank 3");

        assertEquals(
                Optional.empty(),
                SameFailures.signatureOf(ended(Outcome.NODE_FAULT), Optional.empty(), 1, stderr, List.of()));
        assertTrue(SameFailures.signatureOf(ended(Outcome.APP_FAILURE), Optional.empty(), 1, stderr, List.of())
                .isPresent());
        assertEquals(
                Optional.empty(),
                SameFailures.signatureOf(ended(Outcome.CANCELLED), Optional.empty(), 1, stderr, List.of()));
    }

    @Test
    void anAttemptARuleEndedIsKnownByTheRuleNotByItsOutput() {
        RuleViolation violation = EndOfAttemptTest.hanging();
        Optional<Attempt.RuleStop> rule = Optional.of(new Attempt.RuleStop(violation, null, null, true));

        assertEquals(
                Optional.of(FailureSignature.ofRule(143, "Beat", "HANGING")),
                SameFailures.signatureOf(
                        ended(Outcome.CANCELLED), rule, 143, List.of("KeyboardInterrupt: error"), List.of()));
    }
}
