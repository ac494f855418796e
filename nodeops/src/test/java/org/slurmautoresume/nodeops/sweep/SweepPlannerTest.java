package org.slurmautoresume.nodeops.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.slurmautoresume.slurm.parse.Records.job;
import static org.slurmautoresume.slurm.parse.Records.jobWith;
import static org.slurmautoresume.slurm.parse.Records.node;
import static org.slurmautoresume.slurm.parse.Records.nodeWith;
import static org.slurmautoresume.slurm.parse.Records.nodeWithReason;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.JobParser;
import org.slurmautoresume.slurm.parse.JsonRecords;
import org.slurmautoresume.slurm.parse.Records;
import org.slurmautoresume.slurm.parse.NodeParser;

/** Each stuck-state rule over real 22.05 records (fixtures/slurm-22.05, see its README). */
class SweepPlannerTest {

    /** The capture's clock: node2 was marked Action:Replace at 04:14:02 (show-node-idle-fail.txt). */
    private static final LocalDateTime MARKED = LocalDateTime.parse("2026-11-22T04:14:02");
    /** Job 11 of show-job-completing.txt ended then: it stays COMPLETING on node4. */
    private static final LocalDateTime ENDED = LocalDateTime.parse("2026-11-22T04:15:14");

    private static SweepPlan plan(List<Node> nodes, List<Job> jobs, LocalDateTime now) {
        return new SweepPlanner(SweepPolicy.DEFAULTS).plan(nodes, jobs, now);
    }

    private static SweepPlan plan(SweepPolicy policy, List<Node> nodes, List<Job> jobs, LocalDateTime now) {
        return new SweepPlanner(policy).plan(nodes, jobs, now);
    }

    /** The fixture's job with several {@code Key=value} fields replaced, in pairs. */
    private static Job jobWithFields(String fixture, String... keysAndValues) {
        String text = Records.jobText(fixture);
        for (int i = 0; i < keysAndValues.length; i += 2) {
            text = Records.replaceField(text, keysAndValues[i], keysAndValues[i + 1]);
        }
        return new JobParser().parse(text);
    }

    private static SweepPolicy policy(int maxNodes, int maxPartitionPercent) {
        SweepPolicy d = SweepPolicy.DEFAULTS;
        return new SweepPolicy(d.escalateFailAfter(), d.notRespondingAfter(), d.markNotResponding(),
                d.completingAfter(), d.donorMaxAge(), d.resumeReturned(), d.resumeUnexpectedReboot(), maxNodes,
                maxPartitionPercent, d.excludeNodes(), d.healthCommand(), d.healthTimeout());
    }

    @Test
    void aReplacedNodeBackAsIdleFailIsResumedAfterAHealthCheck() {
        // Reason set 04:14:02, slurmd started 04:14:02: the replacement registered within the second.
        SweepPlan plan = plan(List.of(node("show-node-idle-fail.txt", "node2")), List.of(), MARKED.plusMinutes(1));
        assertEquals(1, plan.actions().size(), plan.toString());
        SweepAction action = plan.actions().get(0);
        assertEquals(SweepAction.Kind.RESUME_IF_HEALTHY, action.kind());
        assertEquals("node2", action.target());
        assertTrue(action.why().contains("back under the same hostname"), action.why());
    }

    @Test
    void aFailedNodeWhoseSlurmdIsOlderThanTheMarkIsNotBack() {
        // MIXED+FAIL: marked 04:14:41 while its slurmd (started 04:13:04) kept running jobs.
        SweepPlan plan = plan(List.of(node("show-node-mixed-fail.txt", "node3")), List.of(),
                LocalDateTime.parse("2026-11-22T04:20:00"));
        assertTrue(plan.isEmpty(), plan.toString());
    }

    @Test
    void aNodeWaitingForItsReplacementIsLeftAloneHowEverLong() {
        SweepPlan plan = plan(List.of(node("show-node-fail-not-responding.txt", "node2")), List.of(), MARKED.plusDays(3));
        assertTrue(plan.isEmpty(), plan.toString());
    }

    @Test
    void failWithNoJobLeftLongerThanTheLimitEscalatesToDown() {
        Node node = nodeWith("show-node-mixed-fail.txt", "node3", "State", "IDLE+FAIL"); // reason time 04:14:41
        LocalDateTime marked = LocalDateTime.parse("2026-11-22T04:14:41");
        assertTrue(plan(List.of(node), List.of(), marked.plus(SweepPolicy.DEFAULTS.escalateFailAfter())).isEmpty());
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
        assertEquals(SweepPlanner.ESCALATION_WAITS_FOR_JOBS, plan.findings().get(0).kind());
        assertTrue(plan.findings().get(0).why().contains("job 8 (artest, RUNNING)"), plan.findings().get(0).why());
        Job ended = jobWithFields("show-job-running.txt", "JobState", "COMPLETED", "NodeList", "node3");
        assertEquals(SweepAction.Kind.ESCALATE_TO_DOWN, plan(List.of(node), List.of(ended),
                LocalDateTime.parse("2026-11-22T07:14:41")).actions().get(0).kind(),
                "an ended job's record holds nothing on the node");
    }

    @Test
    void escalationCanBeTurnedOff() {
        SweepPolicy d = SweepPolicy.DEFAULTS;
        SweepPolicy never = new SweepPolicy(Duration.ZERO, d.notRespondingAfter(), true, d.completingAfter(),
                d.donorMaxAge(), true, true, 10, 25, "", List.of(), d.healthTimeout());
        assertTrue(plan(never, List.of(node("show-node-mixed-fail.txt", "node3")), List.of(), MARKED.plusDays(2)).isEmpty());
    }

    @Test
    void downNotRespondingTooLongIsMarkedForReplacement() {
        Node node = node("show-node-down-not-responding.txt", "node2"); // "Not responding" since 04:13:44
        LocalDateTime since = LocalDateTime.parse("2026-11-22T04:13:44");
        assertTrue(plan(List.of(node), List.of(), since.plusMinutes(5)).isEmpty());
        SweepPlan plan = plan(List.of(node), List.of(), since.plusMinutes(11));
        assertEquals(SweepAction.Kind.MARK_REPLACE, plan.actions().get(0).kind());
        assertEquals("Action:Replace", plan.actions().get(0).reason());
        assertTrue(plan.actions().get(0).why().contains("Not responding"), plan.actions().get(0).why());
    }

    @Test
    void downNotRespondingIsOnlyReportedWhenThePolicySaysReport() {
        SweepPolicy d = SweepPolicy.DEFAULTS;
        SweepPolicy report = new SweepPolicy(d.escalateFailAfter(), d.notRespondingAfter(), false, d.completingAfter(),
                d.donorMaxAge(), true, true, 10, 25, "", List.of(), d.healthTimeout());
        SweepPlan plan = plan(report, List.of(node("show-node-down-not-responding.txt", "node2")), List.of(),
                LocalDateTime.parse("2026-11-22T05:00:00"));
        assertTrue(plan.actions().isEmpty(), plan.toString());
        assertEquals("not-responding", plan.findings().get(0).kind());
        assertEquals("node2", plan.findings().get(0).node());
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
        assertEquals(List.of(SweepAction.Kind.DRAIN_STUCK_COMPLETING, "node4"), List.of(action.kind(), action.target()));
        assertEquals("stuck COMPLETING job 11: drained while other jobs run", action.reason());
        // A job's supervisor ends its step on a node drained with an Action: reason: the neighbour's must run on.
        assertFalse(NodeReason.parse(action.reason()).get().isAction("Reboot"), action.reason());
        assertTrue(action.why().contains("MIXED+COMPLETING") && action.why().contains("job 8 (arother, RUNNING)"),
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
        SweepPlan byState = new SweepPlanner(SweepPolicy.DEFAULTS).plan(
                List.of(node("show-node-mixed-completing.txt", "node4")), List.of(stuck), true, late);
        Node idle = node("show-node-idle-completing.txt", "node4");
        SweepPlan byRecord = plan(List.of(idle), List.of(stuck, neighbour()), late);
        SweepPlan unplaced = plan(List.of(idle), List.of(stuck, jobWithFields("show-job-running.txt", "NodeList",
                "node[4")), late);
        for (SweepPlan plan : List.of(byState, byRecord, unplaced)) {
            assertEquals(List.of(SweepAction.Kind.DRAIN_STUCK_COMPLETING),
                    plan.actions().stream().map(SweepAction::kind).toList(), plan.toString());
        }
        assertTrue(byRecord.actions().get(0).why().contains("job 8 (arother, RUNNING)"), byRecord.toString());
    }

    /** A job that ended seconds ago may still be running its epilog: it is not known stuck, so it counts. */
    @Test
    void aJobStillEndingNormallyKeepsTheNodeFromDown() {
        Job ending = jobWithFields("show-job-completing.txt", "JobId", "12", "EndTime", "2026-11-22T04:35:04");
        SweepPlan plan = plan(List.of(node("show-node-idle-completing.txt", "node4")),
                List.of(job("show-job-completing.txt"), ending), LocalDateTime.parse("2026-11-22T04:35:14"));
        assertEquals(SweepAction.Kind.DRAIN_STUCK_COMPLETING, plan.actions().get(0).kind(), plan.toString());
        assertTrue(plan.actions().get(0).why().contains("job 12 (artest, COMPLETING)"), plan.toString());
    }

    /** node4 as the drain leaves it: drained with the drain's reason, {@code state} as given. */
    private static Node drained(String state) {
        return new NodeParser().parse(Records.replaceField(Records.nodeTextWithReason("show-node-mixed-completing.txt",
                "node4", StuckCompleting.drainReason("11") + " [root@2026-11-22T04:35:14]"), "State", state));
    }

    /** The drain's own state: a second sweep plans nothing, and reports why the node waits. */
    @Test
    void aSecondSweepAfterTheDrainPlansNothingWhileOthersRun() {
        for (String state : List.of("MIXED+COMPLETING+DRAIN", "MIXED+COMPLETING+FAIL")) {
            SweepPlan plan = plan(List.of(drained(state)), List.of(job("show-job-completing.txt"), neighbour()),
                    ENDED.plusMinutes(25));
            assertTrue(plan.isEmpty(), state + ": " + plan);
            assertEquals(1, plan.findings().size(), plan.toString());
            SweepPlan.Finding finding = plan.findings().get(0);
            assertEquals(List.of(SweepPlanner.STUCK_COMPLETING_WAITS_FOR_JOBS, "node4"),
                    List.of(finding.kind(), finding.node()));
            assertTrue(finding.why().contains("job 11") && finding.why().contains("job 8 (arother, RUNNING)"),
                    finding.why());
        }
    }

    /** Once the neighbours are gone, only stuck jobs are left (two here): the later sweep sets it DOWN. */
    @Test
    void onceOnlyStuckJobsAreLeftTheDrainedNodeIsSetDown() {
        Job alsoStuck = jobWithFields("show-job-completing.txt", "JobId", "12", "UserId", "arother(1002)",
                "EndTime", "2026-11-22T04:16:00");
        SweepPlan plan = plan(List.of(drained("IDLE+COMPLETING+DRAIN")),
                List.of(alsoStuck, job("show-job-completing.txt")), ENDED.plusMinutes(40));
        assertEquals(1, plan.actions().size(), plan.toString());
        assertEquals(SweepAction.Kind.DOWN_STUCK_COMPLETING, plan.actions().get(0).kind());
        assertEquals("Action:Reboot stuck COMPLETING job 11", plan.actions().get(0).reason(), "the oldest names it");
        assertTrue(plan.findings().isEmpty(), plan.toString());
    }

    /** DOWN is what the rule's last action leaves: Slurm ends the jobs; nothing more to plan. */
    @Test
    void aStuckNodeAlreadyDownPlansNothing() {
        assertTrue(plan(List.of(drained("DOWN+COMPLETING+DRAIN")), List.of(job("show-job-completing.txt")),
                ENDED.plusHours(2)).isEmpty());
    }

    @Test
    void completingWithoutAKnownJobIsLeftAlone() {
        SweepPlan plan = plan(List.of(node("show-node-idle-completing.txt", "node4")), List.of(), MARKED.plusDays(1));
        assertTrue(plan.isEmpty(), plan.toString());
    }

    @Test
    void drainedWithoutAReasonIsReported() {
        // show-node-idle-drain.txt with its Reason= field taken away (Slurm prints none when unset).
        SweepPlan plan = plan(List.of(nodeWithReason("show-node-idle-drain.txt", "node2", null),
                node("show-node-idle-drain.txt", "node3")), List.of(), MARKED);
        assertTrue(plan.actions().isEmpty());
        assertEquals(1, plan.findings().size(), plan.toString());
        assertEquals("drained-without-reason", plan.findings().get(0).kind());
        assertEquals("node2", plan.findings().get(0).node());
    }

    @Test
    void aNodeNhcDrainedIsReportedAsItsVerdictAndLeftToNhc() {
        SweepPlan plan = plan(List.of(nodeWithReason("show-node-idle-drain.txt", "node2",
                        "NHC: check_fs_mount: /scratch not mounted [root@2026-11-22T04:30:00]"),
                node("show-node-idle-drain.txt", "node3")), List.of(), MARKED.plusDays(1));
        assertTrue(plan.actions().isEmpty(), "NHC returns its own drains to service: " + plan);
        assertEquals(1, plan.findings().size(), plan.toString());
        assertEquals(List.of(SweepPlanner.NHC_DRAINED, "node2"), List.of(plan.findings().get(0).kind(),
                plan.findings().get(0).node()));
        assertTrue(plan.findings().get(0).why().endsWith("NHC: check_fs_mount: /scratch not mounted"),
                plan.findings().get(0).why());
    }

    @Test
    void unexpectedlyRebootedAndRespondingIsResumedAfterACheck() {
        // show-node-down-admin.txt (DOWN, responding) with the reason slurmctld gives an unexpected reboot.
        Node node = nodeWithReason("show-node-down-admin.txt", "node4", "Node unexpectedly rebooted [slurm@2026-11-22T04:30:00]");
        SweepPlan plan = plan(List.of(node), List.of(), LocalDateTime.parse("2026-11-22T04:31:00"));
        assertEquals(SweepAction.Kind.RESUME_IF_HEALTHY, plan.actions().get(0).kind());
    }

    /**
     * Since 23.02 slurmctld appends a later reason after " : " instead of replacing the first: a
     * node that went silent after the reboot and answers again keeps both, and is still resumed.
     */
    @Test
    void unexpectedlyRebootedWithAReasonAppendedIsResumedAfterACheck() {
        Node node = nodeWithReason("show-node-down-admin.txt", "node4",
                "Node unexpectedly rebooted : Not responding [slurm@2026-11-22T04:36:00]");
        SweepPlan plan = plan(List.of(node), List.of(), LocalDateTime.parse("2026-11-22T04:37:00"));
        assertEquals(1, plan.actions().size(), plan.toString());
        assertEquals(SweepAction.Kind.RESUME_IF_HEALTHY, plan.actions().get(0).kind());
        assertTrue(plan.actions().get(0).why().contains("Node unexpectedly rebooted : Not responding"),
                plan.actions().get(0).why());
        Node other = nodeWithReason("show-node-down-admin.txt", "node4",
                "Not responding : Node unexpectedly rebooted [slurm@2026-11-22T04:36:00]");
        assertTrue(plan(List.of(other), List.of(), LocalDateTime.parse("2026-11-22T04:37:00")).isEmpty(),
                "another reason came first: someone else's, left alone");
    }

    /**
     * A node whose reboot is issued is Slurm's until it registers or ResumeTimeout passes: a
     * resume would clear REBOOT_ISSUED. Here its slurmd restarted after the reason was set
     * without the registration ending the reboot, which alone would look like "back".
     */
    @Test
    void aNodeWhoseRebootIsIssuedIsLeftToSlurmEvenWhenItLooksBack() {
        String text = Records.replaceField(Records.nodeTextWithReason("show-node-down-drain-reboot-issued.txt", "node4",
                "Action:Reboot : reboot issued [root@2026-11-22T04:14:50]"), "SlurmdStartTime", "2026-11-22T04:14:51");
        LocalDateTime now = LocalDateTime.parse("2026-11-22T04:15:30");
        assertTrue(plan(List.of(new NodeParser().parse(text)), List.of(), now).isEmpty());
        Node withoutTheFlag = new NodeParser().parse(Records.replaceField(text, "State", "DOWN+DRAIN"));
        assertEquals(SweepAction.Kind.RESUME_IF_HEALTHY, plan(List.of(withoutTheFlag), List.of(), now).actions().get(0).kind(),
                "the same node without REBOOT_ISSUED is the resume rule's");
    }

    /** Job 22, the real donor for job 21, as it looked while its salloc still waited. */
    private static Job pendingDonor(String dependency) {
        String text = Records.replaceField(Records.jobText("show-job-expansion-donor.txt"), "JobName", "autoresume-donor-21");
        text = Records.replaceField(text, "JobState", "PENDING");
        return new JobParser().parse(Records.replaceField(text, "Dependency", dependency));
    }

    @Test
    void aPendingDonorWhoseTargetIsNotRunningIsCancelled() {
        Job donor = pendingDonor("expand:21(unfulfilled)");
        LocalDateTime soon = LocalDateTime.parse("2026-11-22T04:19:30");
        assertTrue(plan(List.of(), List.of(donor, job("show-job-running-expanded.txt")), soon).isEmpty());
        SweepPlan gone = plan(List.of(), List.of(donor), soon);
        assertEquals(SweepAction.Kind.CANCEL_ORPHAN_DONOR, gone.actions().get(0).kind());
        assertEquals("22", gone.actions().get(0).target());
        assertTrue(gone.actions().get(0).why().contains("21 is gone"), gone.actions().get(0).why());
        Job finishedTarget = jobWith("show-job-running-expanded.txt", "JobState", "COMPLETED");
        SweepPlan done = plan(List.of(), List.of(pendingDonor("expand:21(failed)"), finishedTarget), soon);
        assertTrue(done.actions().get(0).why().contains("COMPLETED"), done.actions().get(0).why());
    }

    /** 23.02 and later are read with --json: its donor is told by the same fields, under data_parser's names. */
    @Test
    void aDonorReadFromJsonIsCancelledWhenItsTargetIsGoneAndAgedBySubmitTime() {
        Job donor = JsonRecords.job("show-job-running.json", "{\"job_id\": 22, \"name\": \"autoresume-donor-21\","
                + " \"job_state\": [\"PENDING\"], \"dependency\": \"expand:21(unfulfilled)\","
                + " \"submit_time\": " + JsonRecords.time("2026-11-22T04:19:15") + "}");
        SweepPlan gone = plan(List.of(), List.of(donor), LocalDateTime.parse("2026-11-22T04:19:30"));
        assertEquals(SweepAction.Kind.CANCEL_ORPHAN_DONOR, gone.actions().get(0).kind());
        assertTrue(gone.actions().get(0).why().contains("Dependency=expand:21(unfulfilled)"), gone.actions().get(0).why());

        Job target = JsonRecords.job("show-job-running.json", "{\"job_id\": 21}");
        SweepPlan old = plan(List.of(), List.of(donor, target), LocalDateTime.parse("2026-11-22T04:25:00"));
        assertTrue(old.actions().isEmpty(), old.toString());
        assertTrue(old.leftoverJobs().get(0).why().contains("5m45s old"), old.toString());
    }

    @Test
    void aRunningJobNamedLikeADonorIsOnlyReportedWhateverItsTarget() {
        // Nothing Slurm writes tells a running donor from a job its owner named so.
        Job named = jobWith("show-job-expansion-donor.txt", "JobName", "autoresume-donor-21");
        LocalDateTime soon = LocalDateTime.parse("2026-11-22T04:19:30");
        Job finishedTarget = jobWith("show-job-running-expanded.txt", "JobState", "COMPLETED");
        for (List<Job> jobs : List.of(List.of(named), List.of(named, finishedTarget))) {
            SweepPlan plan = plan(List.of(), jobs, soon);
            assertTrue(plan.actions().isEmpty(), plan.toString());
            assertEquals(1, plan.leftoverJobs().size(), plan.toString());
            assertEquals("donor-named-job", plan.leftoverJobs().get(0).kind());
            assertEquals("22", plan.leftoverJobs().get(0).jobId());
        }
    }

    @Test
    void aDonorOlderThanTheLimitIsReportedNotCancelledWhileItsTargetRuns() {
        // Submitted 04:19:15: past donorMaxAge, but a pending expansion of a running job can still start.
        for (Job donor : List.of(jobWith("show-job-expansion-donor.txt", "JobName", "autoresume-donor-21"),
                pendingDonor("expand:21(unfulfilled)"))) {
            SweepPlan plan = plan(List.of(), List.of(donor, job("show-job-running-expanded.txt")),
                    LocalDateTime.parse("2026-11-22T04:25:00"));
            assertTrue(plan.actions().isEmpty(), plan.toString());
            assertTrue(plan.leftoverJobs().get(0).why().contains("old (limit 5m00s)"), plan.toString());
        }
    }

    @Test
    void aPendingJobNamedLikeADonorWithoutTheExpandDependencyIsLeftAlone() {
        // The forged name: a user's own job, pending on something else or on nothing.
        for (String dependency : List.of("(null)", "afterok:21(unfulfilled)", "expand:2(unfulfilled)", "expand:211")) {
            SweepPlan plan = plan(List.of(), List.of(pendingDonor(dependency)), LocalDateTime.parse("2026-11-22T04:19:30"));
            assertTrue(plan.actions().isEmpty(), dependency + ": " + plan);
            assertEquals("donor-named-job", plan.leftoverJobs().get(0).kind(), dependency);
        }
    }

    @Test
    void finishedOrOrdinaryJobsAreNeverCancelled() {
        Job emptied = jobWith("show-job-expansion-donor-emptied.txt", "JobName", "autoresume-donor-21");
        Job ordinary = job("show-job-expansion-donor.txt"); // named no-shell
        assertTrue(plan(List.of(), List.of(emptied, ordinary), MARKED.plusDays(1)).isEmpty());
    }

    @Test
    void capsHoldBackActionsPastMaxNodesAndSayWhich() {
        List<Node> nodes = new ArrayList<>();
        for (int i = 1; i <= 8; i++) {
            nodes.add(node("show-node-idle-fail.txt", "node" + i));
        }
        SweepPlan plan = plan(policy(3, 100), nodes, List.of(), MARKED.plusMinutes(1));
        assertEquals(List.of("node1", "node2", "node3"), plan.actions().stream().map(SweepAction::target).toList());
        assertEquals(5, plan.heldBack().size());
        assertTrue(plan.heldBack().get(0).why().contains("maxNodes=3"), plan.heldBack().get(0).why());
    }

    @Test
    void capsHoldBackActionsPastThePartitionShare() {
        List<Node> nodes = new ArrayList<>();
        for (int i = 1; i <= 8; i++) {
            nodes.add(node(i <= 4 ? "show-node-idle-fail.txt" : "show-node-idle.txt", "node" + i));
        }
        SweepPlan plan = plan(policy(100, 25), nodes, List.of(), MARKED.plusMinutes(1));
        assertEquals(2, plan.actions().size(), plan.toString()); // 25 % of 8 nodes in partition debug
        assertEquals(2, plan.heldBack().size());
        assertTrue(plan.heldBack().get(0).why().contains("partition debug has 8 node(s), so at most 2"),
                plan.heldBack().get(0).why());
    }

    @Test
    void donorCancelsAreNeverHeldBack() {
        Job donor = pendingDonor("expand:21(failed)");
        SweepPlan plan = plan(policy(0, 0), List.of(node("show-node-idle-fail.txt", "node2")), List.of(donor), MARKED);
        assertEquals(SweepAction.Kind.CANCEL_ORPHAN_DONOR, plan.actions().get(0).kind());
        assertEquals(1, plan.heldBack().size());
    }

    @Test
    void excludedNodesAreNeverPlanned() {
        SweepPolicy d = SweepPolicy.DEFAULTS;
        SweepPolicy excluding = new SweepPolicy(d.escalateFailAfter(), d.notRespondingAfter(), true,
                d.completingAfter(), d.donorMaxAge(), true, true, 10, 100, "node[2-3]", List.of(), d.healthTimeout());
        SweepPlan plan = plan(excluding, List.of(node("show-node-idle-fail.txt", "node2"),
                node("show-node-idle-fail.txt", "node4")), List.of(), MARKED.plusMinutes(1));
        assertEquals(List.of("node4"), plan.actions().stream().map(SweepAction::target).toList());
    }

    /** The states each action leaves (real captures) plan nothing, however late the next sweep. */
    @ParameterizedTest
    @ValueSource(strings = {"show-node-idle.txt", "show-node-fail-not-responding.txt", "show-node-idle-after-reboot.txt",
        "show-node-down-drain-reboot-issued.txt", "show-node-idle-drain.txt", "show-node-mixed.txt"})
    void theStatesAnActionLeavesPlanNothing(String fixture) {
        SweepPlan plan = plan(List.of(node(fixture, "node2")), List.of(), MARKED.plusDays(1));
        assertTrue(plan.isEmpty(), fixture + ": " + plan);
    }

    @Test
    void aNodeKeptAfterAFailedCheckIsNotBackAnyMore() {
        // What the executor leaves: the same IDLE+FAIL node, its reason re-set after the slurmd started.
        Node kept = nodeWithReason("show-node-idle-fail.txt", "node2",
                "Action:Replace health check failed: no gpu [root@2026-11-22T04:20:00]");
        assertTrue(plan(List.of(kept), List.of(), LocalDateTime.parse("2026-11-22T04:21:00")).isEmpty());
    }

    @Test
    void aWholeRealClusterListing() {
        List<Node> nodes = new NodeParser().parseAll(Fixtures.read("slurm-22.05", "show-node-all-with-down.txt"));
        SweepPlan plan = plan(policy(10, 100), nodes, List.of(), LocalDateTime.parse("2026-11-22T05:00:00"));
        assertEquals(List.of("node2"), plan.actions().stream().map(SweepAction::target).toList(), plan.toString());
        assertEquals(SweepAction.Kind.MARK_REPLACE, plan.actions().get(0).kind());
    }

    @Test
    void aNodeNotRespondingAgainWithSlurmdNewerIsNotBack() {
        Node silent = nodeWith("show-node-idle-fail.txt", "node2", "State", "IDLE+FAIL+NOT_RESPONDING");
        assertTrue(plan(List.of(silent), List.of(), MARKED.plusMinutes(1)).isEmpty());
    }
}
