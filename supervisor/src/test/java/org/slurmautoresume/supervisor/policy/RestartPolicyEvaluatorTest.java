package org.slurmautoresume.supervisor.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.slurmautoresume.supervisor.policy.FaultKind.APPLICATION_FAILURE;
import static org.slurmautoresume.supervisor.policy.FaultKind.NODE_FAULT;
import static org.slurmautoresume.supervisor.policy.FaultKind.RULE_VIOLATION;
import static org.slurmautoresume.supervisor.policy.RestartLevel.REPLACE_NODES_AND_RERUN;
import static org.slurmautoresume.supervisor.policy.RestartLevel.REQUEUE_JOB;
import static org.slurmautoresume.supervisor.policy.RestartLevel.RERUN_IN_PLACE;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class RestartPolicyEvaluatorTest {

    private static final Instant T0 = Instant.parse("2026-11-23T00:00:00Z");
    private static final List<Strategy> ALL =
            List.of(Strategy.RETRY, Strategy.RECOVER, Strategy.REQUEUE, Strategy.EXIT);

    /** Seed 001's example: 50 step restarts, 3 per 6 hours before a full restart, 1 full restart. */
    private static RestartPolicy seedPolicy(List<Strategy> strategies) {
        return new RestartPolicy(50, OptionalInt.of(3), OptionalLong.of(21600), 1, strategies, DumpSettings.DEFAULT);
    }

    private static Fault fault(FaultKind kind, long secondsAfterT0) {
        return new Fault(kind, T0.plusSeconds(secondsAfterT0), false, "test");
    }

    private static RestartRecord record(long secondsAfterT0, RestartLevel level) {
        return new RestartRecord(T0.plusSeconds(secondsAfterT0), level);
    }

    @Test
    void anApplicationFailureIsRetriedInPlace() {
        Decision d = RestartPolicyEvaluator.decide(fault(APPLICATION_FAILURE, 0), List.of(), seedPolicy(ALL));
        assertEquals(Strategy.RETRY, d.strategy());
        assertEquals(RERUN_IN_PLACE, d.level());
        assertEquals(49, d.budget().stepRestartsLeft());
        assertEquals(OptionalInt.of(2), d.budget().stepRestartsBeforeRequeue());
        assertTrue(d.passedOver().isEmpty());
    }

    @Test
    void aNodeFaultReplacesNodesAndSaysWhyRetryDidNotApply() {
        Decision d = RestartPolicyEvaluator.decide(fault(NODE_FAULT, 0), List.of(), seedPolicy(ALL));
        assertEquals(Strategy.RECOVER, d.strategy());
        assertEquals(REPLACE_NODES_AND_RERUN, d.level());
        assertEquals(List.of("retry: a node fault needs its nodes replaced"), d.passedOver());
    }

    @Test
    void aRuleViolationIsRetriedInPlace() {
        Decision d = RestartPolicyEvaluator.decide(fault(RULE_VIOLATION, 0), List.of(), seedPolicy(ALL));
        assertEquals(RERUN_IN_PLACE, d.level());
    }

    @Test
    void theNthStepRestartWithinTheWindowEscalatesToARequeue() {
        List<RestartRecord> history =
                List.of(record(0, RERUN_IN_PLACE), record(3600, REPLACE_NODES_AND_RERUN), record(7200, RERUN_IN_PLACE));
        Decision d = RestartPolicyEvaluator.decide(fault(APPLICATION_FAILURE, 7300), history, seedPolicy(ALL));
        assertEquals(Strategy.REQUEUE, d.strategy());
        assertEquals(REQUEUE_JOB, d.level());
        assertTrue(
                d.passedOver().get(0).contains("reached numRestartBeforeFullJobRestart=3"),
                d.passedOver().get(0));
        assertEquals(0, d.budget().fullJobRestartsLeft());
        assertEquals(0, d.budget().stepRestartsInWindow());
    }

    @Test
    void restartsOlderThanEvalPeriodSecondsNoLongerCount() {
        List<RestartRecord> history =
                List.of(record(0, RERUN_IN_PLACE), record(3600, RERUN_IN_PLACE), record(7200, RERUN_IN_PLACE));
        // 21600 s after the first restart it has left the window: two remain, one more is allowed.
        Decision inside = RestartPolicyEvaluator.decide(fault(APPLICATION_FAILURE, 21599), history, seedPolicy(ALL));
        Decision outside = RestartPolicyEvaluator.decide(fault(APPLICATION_FAILURE, 21600), history, seedPolicy(ALL));
        assertEquals(Strategy.REQUEUE, inside.strategy());
        assertEquals(Strategy.RETRY, outside.strategy());
        assertEquals(3, outside.budget().stepRestartsInWindow());
        assertEquals(OptionalInt.of(0), outside.budget().stepRestartsBeforeRequeue());
    }

    @Test
    void aRequeueStartsTheEscalationCountAfresh() {
        List<RestartRecord> history = List.of(
                record(0, RERUN_IN_PLACE),
                record(10, RERUN_IN_PLACE),
                record(20, RERUN_IN_PLACE),
                record(30, REQUEUE_JOB));
        Decision d = RestartPolicyEvaluator.decide(fault(APPLICATION_FAILURE, 40), history, seedPolicy(ALL));
        assertEquals(Strategy.RETRY, d.strategy());
        assertEquals(1, d.budget().stepRestartsInWindow());
        assertEquals(46, d.budget().stepRestartsLeft(), "the lifetime budget does not start again");
    }

    @Test
    void afterMaxFullJobRestartsTheJobGivesUp() {
        List<RestartRecord> history = List.of(
                record(0, RERUN_IN_PLACE),
                record(10, RERUN_IN_PLACE),
                record(20, REQUEUE_JOB),
                record(30, RERUN_IN_PLACE),
                record(40, RERUN_IN_PLACE),
                record(50, RERUN_IN_PLACE));
        Decision d = RestartPolicyEvaluator.decide(fault(NODE_FAULT, 60), history, seedPolicy(ALL));
        assertTrue(d.givesUp());
        assertEquals(Strategy.EXIT, d.strategy());
        assertEquals(
                List.of(
                        "retry: a node fault needs its nodes replaced",
                        "recover: 3 step restarts within evalPeriodSeconds=21600 since the last requeue"
                                + " reached numRestartBeforeFullJobRestart=3",
                        "requeue: maxFullJobRestarts=1 used up"),
                d.passedOver());
    }

    @Test
    void jobMaxRetryCountCapsStepRestartsOverTheWholeLife() {
        RestartPolicy policy =
                new RestartPolicy(2, OptionalInt.empty(), OptionalLong.empty(), 1, ALL, DumpSettings.DEFAULT);
        List<RestartRecord> history = new ArrayList<>();
        Decision first = RestartPolicyEvaluator.decide(fault(APPLICATION_FAILURE, 0), history, policy);
        history.add(new RestartRecord(T0, first.level()));
        Decision second = RestartPolicyEvaluator.decide(fault(NODE_FAULT, 100_000), history, policy);
        history.add(new RestartRecord(T0.plusSeconds(100_000), second.level()));
        Decision third = RestartPolicyEvaluator.decide(fault(APPLICATION_FAILURE, 900_000), history, policy);
        assertEquals(
                List.of(RERUN_IN_PLACE, REPLACE_NODES_AND_RERUN, REQUEUE_JOB),
                List.of(first.level(), second.level(), third.level()));
        assertTrue(third.passedOver().get(0).contains("jobMaxRetryCount=2 used up"));
    }

    @Test
    void withoutNumRestartBeforeFullJobRestartStepRestartsNeverEscalateByCount() {
        RestartPolicy policy =
                new RestartPolicy(100, OptionalInt.empty(), OptionalLong.of(60), 1, ALL, DumpSettings.DEFAULT);
        List<RestartRecord> history = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            history.add(record(i, RERUN_IN_PLACE));
        }
        Decision d = RestartPolicyEvaluator.decide(fault(APPLICATION_FAILURE, 21), history, policy);
        assertEquals(Strategy.RETRY, d.strategy());
        assertTrue(d.budget().stepRestartsBeforeRequeue().isEmpty());
    }

    @Test
    void theListOrderIsTheOrderTried() {
        RestartPolicy requeueFirst = seedPolicy(List.of(Strategy.REQUEUE, Strategy.RETRY, Strategy.EXIT));
        assertEquals(
                Strategy.REQUEUE,
                RestartPolicyEvaluator.decide(fault(APPLICATION_FAILURE, 0), List.of(), requeueFirst)
                        .strategy());
        RestartPolicy exitOnly = seedPolicy(List.of(Strategy.EXIT));
        Decision d = RestartPolicyEvaluator.decide(fault(NODE_FAULT, 0), List.of(), exitOnly);
        assertTrue(d.givesUp());
        assertTrue(d.reason().contains("exit is next"), d.reason());
    }

    @Test
    void aListWithoutAnApplicableStrategyGivesUp() {
        RestartPolicy recoverOnly = seedPolicy(List.of(Strategy.RECOVER));
        Decision d = RestartPolicyEvaluator.decide(fault(RULE_VIOLATION, 0), List.of(), recoverOnly);
        assertTrue(d.givesUp());
        assertEquals(List.of("recover: no node is at fault"), d.passedOver());
        assertTrue(d.reason().contains("no strategy in the list applies"), d.reason());
    }

    @Test
    void dumpPrecedesTheChoiceOnlyWhenTheStepStillRuns() {
        DumpSettings dump = new DumpSettings(SignalNumber.USR2, Duration.ofSeconds(90));
        RestartPolicy policy = new RestartPolicy(
                5,
                OptionalInt.empty(),
                OptionalLong.empty(),
                0,
                List.of(Strategy.DUMP, Strategy.RETRY, Strategy.EXIT),
                dump);
        Fault hanging = new Fault(RULE_VIOLATION, T0, true, "JobHangingDetection HANGING");
        Decision running = RestartPolicyEvaluator.decide(hanging, List.of(), policy);
        assertEquals(Strategy.RETRY, running.strategy());
        assertEquals(dump, running.dumpFirst().orElseThrow());
        assertTrue(running.describe().contains("first SIGUSR2 and up to 90 s"), running.describe());
        Decision exited = RestartPolicyEvaluator.decide(fault(APPLICATION_FAILURE, 0), List.of(), policy);
        assertTrue(exited.dumpFirst().isEmpty(), "a step that already ended has nobody to write last words");
        RestartPolicy noDump = seedPolicy(ALL);
        assertFalse(RestartPolicyEvaluator.decide(hanging, List.of(), noDump)
                .dumpFirst()
                .isPresent());
    }

    @Test
    void giveUpStillDumpsARunningStep() {
        RestartPolicy policy = seedPolicy(List.of(Strategy.DUMP, Strategy.EXIT));
        Decision d = RestartPolicyEvaluator.decide(new Fault(RULE_VIOLATION, T0, true, "loss NaN"), List.of(), policy);
        assertTrue(d.givesUp());
        assertEquals(DumpSettings.DEFAULT, d.dumpFirst().orElseThrow());
    }

    @Test
    void theDescriptionNamesChoiceReasonAndBudgets() {
        Decision d = RestartPolicyEvaluator.decide(
                new Fault(NODE_FAULT, T0, false, "node3 DOWN"), List.of(), seedPolicy(ALL));
        assertEquals(
                "recover: replace the faulty nodes and re-run the step after a node fault (node3 DOWN),"
                        + " step restart 1 of 50 (passed over: retry: a node fault needs its nodes replaced);"
                        + " 49 step restarts left (jobMaxRetryCount), 2 before a requeue (numRestartBeforeFullJobRestart),"
                        + " 1 requeues left (maxFullJobRestarts)",
                d.describe());
    }
}
