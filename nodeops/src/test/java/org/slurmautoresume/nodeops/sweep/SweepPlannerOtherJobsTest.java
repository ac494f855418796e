package org.slurmautoresume.nodeops.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.slurmautoresume.nodeops.sweep.SweepPlannerTest.jobWithFields;
import static org.slurmautoresume.nodeops.sweep.SweepPlannerTest.plan;
import static org.slurmautoresume.slurm.parse.Records.job;
import static org.slurmautoresume.slurm.parse.Records.jobWith;
import static org.slurmautoresume.slurm.parse.Records.node;
import static org.slurmautoresume.slurm.parse.Records.nodeWith;

import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;
import org.slurmautoresume.slurm.parse.NodeParser;
import org.slurmautoresume.slurm.parse.Records;

/**
 * The rules that end in DOWN, which kills every job on a node, beside other jobs: each set DOWN
 * only where nothing else is there, over real 22.05 records (fixtures/slurm-22.05).
 */
class SweepPlannerOtherJobsTest {

    /** Job 11 of show-job-completing.txt ended then: it stays COMPLETING on node4. */
    private static final LocalDateTime ENDED = LocalDateTime.parse("2026-11-22T04:15:14");

    @Test
    void failWithNoJobLeftLongerThanTheLimitEscalatesToDown() {
        Node node = nodeWith("show-node-mixed-fail.txt", "node3", "State", "IDLE+FAIL"); // reason time 04:14:41
        LocalDateTime marked = LocalDateTime.parse("2026-11-22T04:14:41");
        assertTrue(plan(List.of(node), List.of(), marked.plus(SweepPolicy.DEFAULTS.escalateFailAfter()))
                .isEmpty());
        SweepPlan plan = plan(List.of(node), List.of(), marked.plusHours(3));
        assertEquals(1, plan.actions().size(), plan.toString());
        SweepAction action = plan.actions().get(0);
        assertEquals(SweepAction.Kind.ESCALATE_TO_DOWN, action.kind());
        assertEquals("Action:Replace", action.reason());
        assertTrue(action.why().contains("3h00m"), action.why());
        assertTrue(plan.findings().isEmpty(), plan.toString());
    }

    /** DOWN kills every job on the node: a mark any user can ask for never leads there while a job runs. */
    @ParameterizedTest
    @ValueSource(strings = {"MIXED+FAIL", "ALLOCATED+FAIL", "IDLE+COMPLETING+FAIL"})
    void failWithJobsStillOnItIsReportedNeverSetDown(String state) {
        Node node = nodeWith("show-node-mixed-fail.txt", "node3", "State", state);
        SweepPlan plan = plan(List.of(node), List.of(), LocalDateTime.parse("2026-11-22T07:14:41"));
        assertTrue(plan.actions().isEmpty(), plan.toString());
        assertEquals(1, plan.findings().size(), plan.toString());
        SweepPlan.Finding finding = plan.findings().get(0);
        assertEquals(List.of(SweepPlanner.ESCALATION_WAITS_FOR_JOBS, "node3"), List.of(finding.kind(), finding.node()));
        assertTrue(finding.why().contains(state) && finding.why().contains("3h00m"), finding.why());
    }

    /** The job records count as well as the state: either alone keeps the node FAIL. */
    @Test
    void failWithARunningJobRecordOnItIsReportedWhateverItsState() {
        Node node = nodeWith("show-node-mixed-fail.txt", "node3", "State", "IDLE+FAIL");
        Job other = jobWith("show-job-running.txt", "NodeList", "node[2-3]"); // job 8 of artest
        SweepPlan plan = plan(List.of(node), List.of(other), LocalDateTime.parse("2026-11-22T07:14:41"));
        assertTrue(plan.actions().isEmpty(), plan.toString());
        assertEquals(
                SweepPlanner.ESCALATION_WAITS_FOR_JOBS, plan.findings().get(0).kind());
        assertTrue(
                plan.findings().get(0).why().contains("job 8 (artest, RUNNING)"),
                plan.findings().get(0).why());
        Job ended = jobWithFields("show-job-running.txt", "JobState", "COMPLETED", "NodeList", "node3");
        assertEquals(
                SweepAction.Kind.ESCALATE_TO_DOWN,
                plan(List.of(node), List.of(ended), LocalDateTime.parse("2026-11-22T07:14:41"))
                        .actions()
                        .get(0)
                        .kind(),
                "an ended job's record holds nothing on the node");
    }

    @Test
    void completingLongAfterTheJobEndedIsSetDownWhereNothingElseRuns() {
        Node node = node("show-node-idle-completing.txt", "node4");
        Job job = job("show-job-completing.txt"); // job 11 on node4, EndTime 04:15:14
        assertTrue(plan(List.of(node), List.of(job), ENDED.plusMinutes(1)).isEmpty());
        SweepPlan plan = plan(List.of(node), List.of(job), ENDED.plusMinutes(20));
        SweepAction action = plan.actions().get(0);
        assertEquals(SweepAction.Kind.DOWN_STUCK_COMPLETING, action.kind());
        assertEquals("node4", action.target());
        assertEquals("Action:Reboot stuck COMPLETING job 11", action.reason());
        assertTrue(action.why().contains("20m00s") && action.why().endsWith("no other job runs there"), action.why());
    }

    /** The neighbour: job 8's record moved to node4 and given to a second user. */
    private static Job neighbour() {
        return jobWithFields("show-job-running.txt", "NodeList", "node4", "UserId", "arother(1002)");
    }

    /** MIXED: slurmctld counts the running job's cores; those of the job that ended were freed. */
    @Test
    void stuckCompletingBesideARunningJobIsDrainedNeverSetDown() {
        Node node = node("show-node-mixed-completing.txt", "node4");
        List<Job> jobs = List.of(job("show-job-completing.txt"), neighbour());
        assertTrue(plan(List.of(node), jobs, ENDED.plusMinutes(1)).isEmpty());
        SweepPlan plan = plan(List.of(node), jobs, ENDED.plusMinutes(20));
        assertEquals(1, plan.actions().size(), plan.toString());
        SweepAction action = plan.actions().get(0);
        assertEquals(
                List.of(SweepAction.Kind.DRAIN_STUCK_COMPLETING, "node4"), List.of(action.kind(), action.target()));
        assertEquals("stuck COMPLETING job 11: drained while other jobs run", action.reason());
        // A job's supervisor ends its step on a node drained with an Action: reason: the neighbour's must run on.
        assertFalse(NodeReason.parse(action.reason()).get().isAction("Reboot"), action.reason());
        assertTrue(
                action.why().contains("MIXED+COMPLETING") && action.why().contains("job 8 (arother, RUNNING)"),
                action.why());
    }

    /**
     * Either view alone keeps the node from DOWN: the state when the neighbour's record could
     * not be read (a user can spoil their own), a record when the state was read before the
     * job started, a running job whose node list could not be read wherever it may be.
     */
    @Test
    void eitherTheStateOrAJobRecordAloneDrains() {
        Job stuck = job("show-job-completing.txt");
        LocalDateTime late = ENDED.plusMinutes(20);
        SweepPlan byState = new SweepPlanner(SweepPolicy.DEFAULTS)
                .plan(List.of(node("show-node-mixed-completing.txt", "node4")), List.of(stuck), true, late);
        Node idle = node("show-node-idle-completing.txt", "node4");
        SweepPlan byRecord = plan(List.of(idle), List.of(stuck, neighbour()), late);
        SweepPlan unplaced =
                plan(List.of(idle), List.of(stuck, jobWithFields("show-job-running.txt", "NodeList", "node[4")), late);
        for (SweepPlan plan : List.of(byState, byRecord, unplaced)) {
            assertEquals(
                    List.of(SweepAction.Kind.DRAIN_STUCK_COMPLETING),
                    plan.actions().stream().map(SweepAction::kind).toList(),
                    plan.toString());
        }
        assertTrue(byRecord.actions().get(0).why().contains("job 8 (arother, RUNNING)"), byRecord.toString());
    }

    /** A job that ended seconds ago may still be running its epilog: it is not known stuck, so it counts. */
    @Test
    void aJobStillEndingNormallyKeepsTheNodeFromDown() {
        Job ending = jobWithFields("show-job-completing.txt", "JobId", "12", "EndTime", "2026-11-22T04:35:04");
        SweepPlan plan = plan(
                List.of(node("show-node-idle-completing.txt", "node4")),
                List.of(job("show-job-completing.txt"), ending),
                LocalDateTime.parse("2026-11-22T04:35:14"));
        assertEquals(
                SweepAction.Kind.DRAIN_STUCK_COMPLETING, plan.actions().get(0).kind(), plan.toString());
        assertTrue(plan.actions().get(0).why().contains("job 12 (artest, COMPLETING)"), plan.toString());
    }

    /** node4 as the drain leaves it: drained with the drain's reason, {@code state} as given. */
    private static Node drained(String state) {
        return new NodeParser()
                .parse(Records.replaceField(
                        Records.nodeTextWithReason(
                                "show-node-mixed-completing.txt",
                                "node4",
                                StuckCompleting.drainReason("11") + " [root@2026-11-22T04:35:14]"),
                        "State",
                        state));
    }

    /** The drain's own state: a second sweep plans nothing, and reports why the node waits. */
    @Test
    void aSecondSweepAfterTheDrainPlansNothingWhileOthersRun() {
        for (String state : List.of("MIXED+COMPLETING+DRAIN", "MIXED+COMPLETING+FAIL")) {
            SweepPlan plan = plan(
                    List.of(drained(state)),
                    List.of(job("show-job-completing.txt"), neighbour()),
                    ENDED.plusMinutes(25));
            assertTrue(plan.isEmpty(), state + ": " + plan);
            assertEquals(1, plan.findings().size(), plan.toString());
            SweepPlan.Finding finding = plan.findings().get(0);
            assertEquals(
                    List.of(SweepPlanner.STUCK_COMPLETING_WAITS_FOR_JOBS, "node4"),
                    List.of(finding.kind(), finding.node()));
            assertTrue(
                    finding.why().contains("job 11") && finding.why().contains("job 8 (arother, RUNNING)"),
                    finding.why());
        }
    }

    /** Once the neighbours are gone, only stuck jobs are left (two here): the later sweep sets it DOWN. */
    @Test
    void onceOnlyStuckJobsAreLeftTheDrainedNodeIsSetDown() {
        Job alsoStuck = jobWithFields(
                "show-job-completing.txt", "JobId", "12", "UserId", "arother(1002)", "EndTime", "2026-11-22T04:16:00");
        SweepPlan plan = plan(
                List.of(drained("IDLE+COMPLETING+DRAIN")),
                List.of(alsoStuck, job("show-job-completing.txt")),
                ENDED.plusMinutes(40));
        assertEquals(1, plan.actions().size(), plan.toString());
        assertEquals(
                SweepAction.Kind.DOWN_STUCK_COMPLETING, plan.actions().get(0).kind());
        assertEquals(
                "Action:Reboot stuck COMPLETING job 11", plan.actions().get(0).reason(), "the oldest names it");
        assertTrue(plan.findings().isEmpty(), plan.toString());
    }

    /** DOWN is what the rule's last action leaves: Slurm ends the jobs; nothing more to plan. */
    @Test
    void aStuckNodeAlreadyDownPlansNothing() {
        assertTrue(plan(
                        List.of(drained("DOWN+COMPLETING+DRAIN")),
                        List.of(job("show-job-completing.txt")),
                        ENDED.plusHours(2))
                .isEmpty());
    }
}
