package org.slurmautoresume.supervisor.step.restart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.supervisor.policy.Decision;
import org.slurmautoresume.supervisor.policy.DumpSettings;
import org.slurmautoresume.supervisor.policy.Fault;
import org.slurmautoresume.supervisor.policy.FaultKind;
import org.slurmautoresume.supervisor.policy.RestartLevel;
import org.slurmautoresume.supervisor.policy.RestartPolicy;
import org.slurmautoresume.supervisor.policy.RestartRecord;
import org.slurmautoresume.supervisor.policy.Strategy;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;

class RestartGateTest {

    private static final Instant T0 = Instant.parse("2026-11-23T00:00:00Z");

    private static Fault fault(FaultKind kind, long seconds) {
        return new Fault(kind, T0.plusSeconds(seconds), false, "test");
    }

    private static RestartGate gate(RestartPolicy configured, Map<String, String> env, List<RestartRecord> earlier) {
        return RestartGate.of(configured, SupervisorSettings.fromEnvironment(env), earlier);
    }

    private static RestartPolicy policy(int maxRetry, int maxFull, Strategy... strategies) {
        return new RestartPolicy(
                maxRetry,
                OptionalInt.empty(),
                OptionalLong.empty(),
                maxFull,
                List.of(strategies),
                DumpSettings.DEFAULT);
    }

    /** Carries out decisions until one gives up; the levels taken. */
    private static List<RestartLevel> runUntilGiveUp(RestartGate gate, FaultKind kind) {
        List<RestartLevel> levels = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Decision d = gate.decide(fault(kind, i));
            levels.add(d.level());
            if (d.givesUp() || d.level() == RestartLevel.REQUEUE_JOB) {
                return levels;
            }
            gate.carriedOut(d, T0.plusSeconds(i));
        }
        throw new AssertionError("never gave up: " + levels);
    }

    @Test
    void withoutFilesTheVariablesKeepTheirOldMeaning() {
        RestartGate gate = gate(null, Map.of(), List.of());
        assertEquals(List.of(RestartLevel.GIVE_UP), runUntilGiveUp(gate, FaultKind.APPLICATION_FAILURE));
        assertEquals(
                List.of(
                        RestartLevel.REPLACE_NODES_AND_RERUN,
                        RestartLevel.REPLACE_NODES_AND_RERUN,
                        RestartLevel.GIVE_UP),
                runUntilGiveUp(gate(null, Map.of(), List.of()), FaultKind.NODE_FAULT));
        RestartGate apps = gate(null, Map.of("AUTORESUME_MAX_APP_RETRIES", "3"), List.of());
        assertEquals(4, runUntilGiveUp(apps, FaultKind.APPLICATION_FAILURE).size());
    }

    @Test
    void theNodeVariableNamesItselfWhenItStopsARecovery() {
        RestartGate gate = gate(null, Map.of("AUTORESUME_MAX_NODE_RETRIES", "0"), List.of());
        Decision d = gate.decide(fault(FaultKind.NODE_FAULT, 0));
        assertTrue(d.givesUp());
        assertEquals(
                "node retries used up (AUTORESUME_MAX_NODE_RETRIES=0)", RestartGate.whyNot(d, FaultKind.NODE_FAULT));
    }

    @Test
    void onExhaustedRequeueWithoutFilesRequeuesPastTheBudgets() {
        RestartGate gate =
                gate(null, Map.of("AUTORESUME_MAX_NODE_RETRIES", "0", "AUTORESUME_ON_EXHAUSTED", "requeue"), List.of());
        Decision d = gate.decide(fault(FaultKind.NODE_FAULT, 0));
        assertEquals(RestartLevel.REQUEUE_JOB, d.level());
        assertTrue(gate.requeueFromEnvironment());
    }

    @Test
    void withAFileTheFileDecidesAndAVariableThatIsSetCapsItsKind() {
        RestartPolicy file = policy(5, 0, Strategy.RETRY, Strategy.RECOVER, Strategy.EXIT);
        // No variable: the file's five retries, application failures included (the old default was none).
        assertEquals(
                6,
                runUntilGiveUp(gate(file, Map.of(), List.of()), FaultKind.RULE_VIOLATION)
                        .size());
        // The variable is set: it caps this srun's in-place re-runs below the file's budget.
        RestartGate capped = gate(file, Map.of("AUTORESUME_MAX_APP_RETRIES", "1"), List.of());
        assertEquals(
                List.of(RestartLevel.RERUN_IN_PLACE, RestartLevel.GIVE_UP),
                runUntilGiveUp(capped, FaultKind.APPLICATION_FAILURE));
    }

    @Test
    void onExhaustedOverridesTheFilesRequeueChoice() {
        RestartPolicy file = policy(0, 2, Strategy.RETRY, Strategy.REQUEUE, Strategy.EXIT);
        assertEquals(
                RestartLevel.REQUEUE_JOB,
                gate(file, Map.of(), List.of())
                        .decide(fault(FaultKind.APPLICATION_FAILURE, 0))
                        .level());
        assertTrue(gate(file, Map.of("AUTORESUME_ON_EXHAUSTED", "exit"), List.of())
                .decide(fault(FaultKind.APPLICATION_FAILURE, 0))
                .givesUp());
        RestartPolicy noRequeue = policy(0, 0, Strategy.RETRY, Strategy.EXIT);
        RestartGate requeue = gate(noRequeue, Map.of("AUTORESUME_ON_EXHAUSTED", "requeue"), List.of());
        assertEquals(
                List.of(Strategy.RETRY, Strategy.REQUEUE, Strategy.EXIT),
                requeue.policy().strategies());
        assertEquals(
                RestartLevel.REQUEUE_JOB,
                requeue.decide(fault(FaultKind.APPLICATION_FAILURE, 0)).level());
    }

    @Test
    void restartsFromEarlierRunsCountAgainstTheJobsLifeBudgets() {
        RestartPolicy file = policy(2, 1, Strategy.RETRY, Strategy.REQUEUE, Strategy.EXIT);
        List<RestartRecord> earlier = List.of(
                new RestartRecord(T0, RestartLevel.RERUN_IN_PLACE),
                new RestartRecord(T0.plusSeconds(1), RestartLevel.RERUN_IN_PLACE),
                new RestartRecord(T0.plusSeconds(2), RestartLevel.REQUEUE_JOB));
        Decision d = gate(file, Map.of(), earlier).decide(fault(FaultKind.RULE_VIOLATION, 10));
        assertTrue(d.givesUp(), d.describe());
        assertTrue(
                d.passedOver().contains("retry: jobMaxRetryCount=2 used up"),
                d.passedOver().toString());
        assertTrue(
                d.passedOver().contains("requeue: maxFullJobRestarts=1 used up"),
                d.passedOver().toString());
    }

    @Test
    void aFailedRepairLeavesOnlyRequeueOrExit() {
        RestartPolicy file = policy(5, 1, Strategy.RETRY, Strategy.RECOVER, Strategy.REQUEUE, Strategy.EXIT);
        RestartGate gate = gate(file, Map.of(), List.of());
        Decision d = gate.decideWithoutStepRestart(fault(FaultKind.NODE_FAULT, 0), "no spare came");
        assertEquals(RestartLevel.REQUEUE_JOB, d.level());
        assertEquals("no spare came", RestartGate.whyNot(d, FaultKind.NODE_FAULT));
    }

    @Test
    void dumpComesFirstOnlyForAStepStillRunning() {
        RestartPolicy file = policy(1, 0, Strategy.DUMP, Strategy.RETRY, Strategy.EXIT);
        RestartGate gate = gate(file, Map.of(), List.of());
        assertTrue(gate.decide(new Fault(FaultKind.RULE_VIOLATION, T0, true, "hang"))
                .dumpFirst()
                .isPresent());
        assertTrue(gate.decide(fault(FaultKind.RULE_VIOLATION, 0)).dumpFirst().isEmpty());
    }
}
