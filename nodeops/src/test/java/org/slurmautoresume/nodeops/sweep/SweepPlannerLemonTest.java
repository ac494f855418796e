package org.slurmautoresume.nodeops.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.slurmautoresume.slurm.parse.Records.node;
import static org.slurmautoresume.slurm.parse.Records.nodeWithReason;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.nodeops.lemon.FaultHistory;
import org.slurmautoresume.nodeops.lemon.FaultMark;
import org.slurmautoresume.nodeops.lemon.LemonHold;
import org.slurmautoresume.nodeops.lemon.LemonRule;
import org.slurmautoresume.slurm.model.Node;

/** The lemon rule over the real record of a node back under its hostname (show-node-idle-fail.txt). */
class SweepPlannerLemonTest {

    /** node2 was marked Action:Replace at 04:14:02 and its slurmd registered again the same second. */
    private static final LocalDateTime MARKED = LocalDateTime.parse("2026-11-22T04:14:02");

    private static final LocalDateTime NOW = MARKED.plusMinutes(1);

    private static final Node BACK = node("show-node-idle-fail.txt", "node2");

    private static FaultMark markedAt(LocalDateTime time) {
        return new FaultMark("node2", time, "FAIL", "Action:Replace", "root(0)");
    }

    private static FaultHistory marks(LocalDateTime... times) {
        return FaultHistory.of(Map.of(
                "node2",
                java.util.Arrays.stream(times)
                        .map(SweepPlannerLemonTest::markedAt)
                        .toList()));
    }

    private static SweepPolicy withLemon(LemonRule rule) {
        SweepPolicy d = SweepPolicy.DEFAULTS;
        return new SweepPolicy(
                d.escalateFailAfter(),
                d.notRespondingAfter(),
                d.markNotResponding(),
                d.completingAfter(),
                d.donorMaxAge(),
                d.resumeReturned(),
                d.resumeUnexpectedReboot(),
                d.maxNodes(),
                d.maxPartitionPercent(),
                d.excludeNodes(),
                d.healthCommand(),
                d.healthTimeout(),
                rule);
    }

    private static SweepPlan plan(SweepPolicy policy, Node node, FaultHistory history) {
        return new SweepPlanner(policy).plan(List.of(node), List.of(), false, history, NOW);
    }

    @Test
    void aNodeMarkedTheThirdTimeInAWeekIsHeldInsteadOfResumed() {
        SweepPlan plan = plan(SweepPolicy.DEFAULTS, BACK, marks(MARKED.minusDays(5), MARKED.minusDays(1), MARKED));
        assertEquals(1, plan.actions().size(), plan.toString());
        SweepAction hold = plan.actions().get(0);
        assertEquals(SweepAction.Kind.HOLD_LEMON, hold.kind());
        assertEquals("node2", hold.target());
        assertTrue(LemonHold.isHold(hold.reason()), hold.reason());
        assertTrue(hold.why().contains("marked faulty 3 times"), hold.why());
    }

    @Test
    void twoMarksInAWeekAreResumedAsBefore() {
        SweepPlan plan = plan(SweepPolicy.DEFAULTS, BACK, marks(MARKED.minusDays(1), MARKED));
        assertEquals(SweepAction.Kind.RESUME_IF_HEALTHY, plan.actions().get(0).kind(), plan.toString());
    }

    @Test
    void theSitesSmallerThresholdAndWindowApply() {
        SweepPolicy twoInAnHour = withLemon(new LemonRule(2, Duration.ofHours(1)));
        assertEquals(
                SweepAction.Kind.HOLD_LEMON,
                plan(twoInAnHour, BACK, marks(MARKED.minusMinutes(30), MARKED))
                        .actions()
                        .get(0)
                        .kind());
        assertEquals(
                SweepAction.Kind.RESUME_IF_HEALTHY,
                plan(twoInAnHour, BACK, marks(MARKED.minusHours(2), MARKED))
                        .actions()
                        .get(0)
                        .kind());
    }

    @Test
    void withTheRuleOffEveryReturnedNodeIsResumedAndNoHistoryIsAskedFor() {
        SweepPolicy off = withLemon(LemonRule.OFF);
        assertEquals(List.of(), new SweepPlanner(off).nodesToJudge(List.of(BACK)));
        assertEquals(
                SweepAction.Kind.RESUME_IF_HEALTHY,
                plan(off, BACK, marks(MARKED.minusDays(2), MARKED.minusDays(1), MARKED))
                        .actions()
                        .get(0)
                        .kind());
    }

    @Test
    void onlyNodesTheSweepWouldResumeNeedTheirHistory() {
        Node waiting = node("show-node-fail-not-responding.txt", "node2");
        assertEquals(List.of("node2"), new SweepPlanner(SweepPolicy.DEFAULTS).nodesToJudge(List.of(BACK)));
        assertEquals(List.of(), new SweepPlanner(SweepPolicy.DEFAULTS).nodesToJudge(List.of(waiting)));
    }

    @Test
    void withoutTheHistoryTheNodeIsResumedAndAFindingSaysWhy() {
        SweepPlan plan = plan(SweepPolicy.DEFAULTS, BACK, FaultHistory.unavailable("sacctmgr: no slurmdbd"));
        assertEquals(SweepAction.Kind.RESUME_IF_HEALTHY, plan.actions().get(0).kind());
        assertEquals(
                SweepPlanner.LEMON_HISTORY_UNAVAILABLE, plan.findings().get(0).kind());
        assertTrue(
                plan.findings().get(0).why().contains("sacctmgr: no slurmdbd"),
                plan.findings().get(0).why());
    }

    @Test
    void aHeldNodeIsNeverPlannedAgainHowEverOld() {
        String held = LemonHold.reason(
                LemonRule.DEFAULT.judge(List.of(markedAt(MARKED.minusDays(1)), markedAt(MARKED)), MARKED));
        Node kept = nodeWithReason("show-node-idle-fail.txt", "node2", held + " [root@2026-11-22T04:15:00]");
        assertEquals(List.of(), new SweepPlanner(SweepPolicy.DEFAULTS).nodesToJudge(List.of(kept)));
        SweepPlan plan = new SweepPlanner(SweepPolicy.DEFAULTS)
                .plan(List.of(kept), List.of(), false, FaultHistory.none(), MARKED.plusDays(60));
        assertTrue(plan.isEmpty(), plan.toString());
    }
}
