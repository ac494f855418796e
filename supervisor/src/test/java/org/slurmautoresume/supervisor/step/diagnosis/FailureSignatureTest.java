package org.slurmautoresume.supervisor.step.diagnosis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How a failure is reduced to what the same failure on another attempt, on other nodes, shares. */
class FailureSignatureTest {

    private static final List<String> HOSTS_A = List.of("node2", "node3");
    private static final List<String> HOSTS_B = List.of("node5", "node6");

    private static Optional<FailureSignature> of(int status, List<String> hosts, String... stderr) {
        return FailureSignature.ofOutput(status, List.of(stderr), hosts);
    }

    @Test
    void theSameErrorOfAnotherRankOnAnotherNodeAtAnotherTimeIsTheSameSignature() {
        Optional<FailureSignature> first = of(
                1,
                HOSTS_A,
                "2026-11-30 10:01:02,345 rank 3 on node2: RuntimeError: CUDA error: an illegal memory access"
                        + " was encountered at 0x7f3a2c001000",
                "srun: error: node2: task 3: Exited with exit code 1");
        Optional<FailureSignature> second = of(
                1,
                HOSTS_B,
                "2026-11-30 11:41:59.001 rank 7 on node5: RuntimeError: CUDA error: an illegal memory access"
                        + " was encountered at 0x55d1e0a08f00",
                "srun: error: node5: task 7: Exited with exit code 1",
                "srun: error: node6: task 1: Exited with exit code 1");

        assertTrue(first.isPresent());
        assertEquals(first, second);
        assertEquals(
                List.of("<time> rank <n> on <host>: RuntimeError: CUDA error: an illegal memory access was"
                        + " encountered at <hex>"),
                first.get().lines());
    }

    @Test
    void hostNamesWithoutDigitsAreTakenOutByName() {
        assertEquals(
                of(1, List.of("alpha"), "ValueError: alpha lost its peer"),
                of(1, List.of("beta"), "ValueError: beta lost its peer"));
    }

    @Test
    void ranksPrintingTheSameErrorsInAnotherOrderStillMatch() {
        assertEquals(
                of(1, HOSTS_A, "[rank0] NCCL error: unhandled system error", "[rank1] RuntimeError: NCCL failure"),
                of(1, HOSTS_A, "[rank1] RuntimeError: NCCL failure", "[rank0] NCCL error: unhandled system error"));
    }

    @Test
    void anotherErrorOrAnotherExitStatusIsAnotherSignature() {
        Optional<FailureSignature> cuda = of(1, HOSTS_A, "RuntimeError: CUDA error: an illegal memory access");
        assertNotEquals(cuda, of(1, HOSTS_A, "torch.OutOfMemoryError: CUDA out of memory"));
        assertNotEquals(cuda, of(2, HOSTS_A, "RuntimeError: CUDA error: an illegal memory access"));
    }

    @Test
    void onlyTheApplicationsErrorLinesCountNotItsOtherOutputNorSrunsOwnWords() {
        assertEquals(
                of(1, HOSTS_A, "KeyError: 'lr'"),
                of(
                        1,
                        HOSTS_A,
                        "[auto-resume] JobID=12 StepID=0 TaskID=0 task_init",
                        "KeyError: 'lr'",
                        "step 41 loss 2.31",
                        "slurmstepd: error: *** STEP 12.0 ON node2 CANCELLED AT 2026-11-30T10:01:02 ***",
                        "srun: error: node2: task 0: Exited with exit code 1"));
    }

    @Test
    void withoutAnErrorLineFromTheApplicationThereIsNoSignature() {
        assertEquals(Optional.empty(), of(1, HOSTS_A));
        assertEquals(
                Optional.empty(),
                of(1, HOSTS_A, "step 41 loss 2.31", "srun: error: node2: task 0: Exited with exit code 1"));
    }

    @Test
    void onlyTheLastErrorLinesAreCompared() {
        String[] early = new String[FailureSignature.ERROR_LINES + 1];
        for (int i = 0; i < early.length; i++) {
            early[i] = "UserWarning: error " + (char) ('a' + i);
        }
        Optional<FailureSignature> signature = of(1, HOSTS_A, early);
        assertEquals(
                FailureSignature.ERROR_LINES, signature.orElseThrow().lines().size());
        assertTrue(signature.get().lines().stream().noneMatch(l -> l.endsWith("error a")), signature.toString());
    }

    @Test
    void aRuleSignatureIsTheRuleAndItsStateAndIsSaidShortly() {
        FailureSignature rule = FailureSignature.ofRule(143, "NanLoss", "FAULTED");
        assertEquals(rule, FailureSignature.ofRule(143, "NanLoss", "FAULTED"));
        assertNotEquals(rule, FailureSignature.ofRule(143, "NanLoss", "SLOW"));
        assertEquals("exit 143, rule NanLoss FAULTED", rule.describe());
        String long_ = "RuntimeError: " + "x".repeat(1000);
        assertTrue(of(1, HOSTS_A, long_).orElseThrow().describe().length() < 320);
    }
}
