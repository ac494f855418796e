package org.slurmautoresume.nodeops.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.JobParser;
import org.slurmautoresume.slurm.parse.JsonRecords;
import org.slurmautoresume.slurm.parse.NodeParser;
import org.slurmautoresume.slurm.parse.Records;

/** Each stuck-state rule over real 22.05 records (fixtures/slurm-22.05, see its README). */
class SweepPlannerTest {

    /** The capture's clock: node2 was marked Action:Replace at 04:14:02 (show-node-idle-fail.txt). */
    private static final LocalDateTime MARKED = LocalDateTime.parse("2026-11-22T04:14:02");

    static SweepPlan plan(List<Node> nodes, List<Job> jobs, LocalDateTime now) {
        return new SweepPlanner(SweepPolicy.DEFAULTS).plan(nodes, jobs, now);
    }

    private static SweepPlan plan(SweepPolicy policy, List<Node> nodes, List<Job> jobs, LocalDateTime now) {
        return new SweepPlanner(policy).plan(nodes, jobs, now);
    }

    /** The fixture's job with several {@code Key=value} fields replaced, in pairs. */
    static Job jobWithFields(String fixture, String... keysAndValues) {
        String text = Records.jobText(fixture);
        for (int i = 0; i < keysAndValues.length; i += 2) {
            text = Records.replaceField(text, keysAndValues[i], keysAndValues[i + 1]);
        }
        return new JobParser().parse(text);
    }

    private static SweepPolicy policy(int maxNodes, int maxPartitionPercent) {
        SweepPolicy d = SweepPolicy.DEFAULTS;
        return new SweepPolicy(
                d.escalateFailAfter(),
                d.notRespondingAfter(),
                d.markNotResponding(),
                d.completingAfter(),
                d.donorMaxAge(),
                d.resumeReturned(),
                d.resumeUnexpectedReboot(),
                maxNodes,
                maxPartitionPercent,
                d.excludeNodes(),
                d.healthCommand(),
                d.healthTimeout(),
                d.lemon());
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
        SweepPlan plan = plan(
                List.of(node("show-node-mixed-fail.txt", "node3")),
                List.of(),
                LocalDateTime.parse("2026-11-22T04:20:00"));
        assertTrue(plan.isEmpty(), plan.toString());
    }

    @Test
    void aNodeWaitingForItsReplacementIsLeftAloneHowEverLong() {
        SweepPlan plan =
                plan(List.of(node("show-node-fail-not-responding.txt", "node2")), List.of(), MARKED.plusDays(3));
        assertTrue(plan.isEmpty(), plan.toString());
    }

    @Test
    void escalationCanBeTurnedOff() {
        SweepPolicy d = SweepPolicy.DEFAULTS;
        SweepPolicy never = new SweepPolicy(
                Duration.ZERO,
                d.notRespondingAfter(),
                true,
                d.completingAfter(),
                d.donorMaxAge(),
                true,
                true,
                10,
                25,
                "",
                List.of(),
                d.healthTimeout(),
                d.lemon());
        assertTrue(plan(never, List.of(node("show-node-mixed-fail.txt", "node3")), List.of(), MARKED.plusDays(2))
                .isEmpty());
    }

    @Test
    void downNotRespondingTooLongIsMarkedForReplacement() {
        Node node = node("show-node-down-not-responding.txt", "node2"); // "Not responding" since 04:13:44
        LocalDateTime since = LocalDateTime.parse("2026-11-22T04:13:44");
        assertTrue(plan(List.of(node), List.of(), since.plusMinutes(5)).isEmpty());
        SweepPlan plan = plan(List.of(node), List.of(), since.plusMinutes(11));
        assertEquals(SweepAction.Kind.MARK_REPLACE, plan.actions().get(0).kind());
        assertEquals("Action:Replace", plan.actions().get(0).reason());
        assertTrue(
                plan.actions().get(0).why().contains("Not responding"),
                plan.actions().get(0).why());
    }

    @Test
    void downNotRespondingIsOnlyReportedWhenThePolicySaysReport() {
        SweepPolicy d = SweepPolicy.DEFAULTS;
        SweepPolicy report = new SweepPolicy(
                d.escalateFailAfter(),
                d.notRespondingAfter(),
                false,
                d.completingAfter(),
                d.donorMaxAge(),
                true,
                true,
                10,
                25,
                "",
                List.of(),
                d.healthTimeout(),
                d.lemon());
        SweepPlan plan = plan(
                report,
                List.of(node("show-node-down-not-responding.txt", "node2")),
                List.of(),
                LocalDateTime.parse("2026-11-22T05:00:00"));
        assertTrue(plan.actions().isEmpty(), plan.toString());
        assertEquals("not-responding", plan.findings().get(0).kind());
        assertEquals("node2", plan.findings().get(0).node());
    }

    @Test
    void completingWithoutAKnownJobIsLeftAlone() {
        SweepPlan plan = plan(List.of(node("show-node-idle-completing.txt", "node4")), List.of(), MARKED.plusDays(1));
        assertTrue(plan.isEmpty(), plan.toString());
    }

    @Test
    void drainedWithoutAReasonIsReported() {
        // show-node-idle-drain.txt with its Reason= field taken away (Slurm prints none when unset).
        SweepPlan plan = plan(
                List.of(
                        nodeWithReason("show-node-idle-drain.txt", "node2", null),
                        node("show-node-idle-drain.txt", "node3")),
                List.of(),
                MARKED);
        assertTrue(plan.actions().isEmpty());
        assertEquals(1, plan.findings().size(), plan.toString());
        assertEquals("drained-without-reason", plan.findings().get(0).kind());
        assertEquals("node2", plan.findings().get(0).node());
    }

    @Test
    void aNodeNhcDrainedIsReportedAsItsVerdictAndLeftToNhc() {
        SweepPlan plan = plan(
                List.of(
                        nodeWithReason(
                                "show-node-idle-drain.txt",
                                "node2",
                                "NHC: check_fs_mount: /scratch not mounted [root@2026-11-22T04:30:00]"),
                        node("show-node-idle-drain.txt", "node3")),
                List.of(),
                MARKED.plusDays(1));
        assertTrue(plan.actions().isEmpty(), "NHC returns its own drains to service: " + plan);
        assertEquals(1, plan.findings().size(), plan.toString());
        assertEquals(
                List.of(SweepPlanner.NHC_DRAINED, "node2"),
                List.of(plan.findings().get(0).kind(), plan.findings().get(0).node()));
        assertTrue(
                plan.findings().get(0).why().endsWith("NHC: check_fs_mount: /scratch not mounted"),
                plan.findings().get(0).why());
    }

    @Test
    void unexpectedlyRebootedAndRespondingIsResumedAfterACheck() {
        // show-node-down-admin.txt (DOWN, responding) with the reason slurmctld gives an unexpected reboot.
        Node node = nodeWithReason(
                "show-node-down-admin.txt", "node4", "Node unexpectedly rebooted [slurm@2026-11-22T04:30:00]");
        SweepPlan plan = plan(List.of(node), List.of(), LocalDateTime.parse("2026-11-22T04:31:00"));
        assertEquals(SweepAction.Kind.RESUME_IF_HEALTHY, plan.actions().get(0).kind());
    }

    /**
     * Since 23.02 slurmctld appends a later reason after " : " instead of replacing the first: a
     * node that went silent after the reboot and answers again keeps both, and is still resumed.
     */
    @Test
    void unexpectedlyRebootedWithAReasonAppendedIsResumedAfterACheck() {
        Node node = nodeWithReason(
                "show-node-down-admin.txt",
                "node4",
                "Node unexpectedly rebooted : Not responding [slurm@2026-11-22T04:36:00]");
        SweepPlan plan = plan(List.of(node), List.of(), LocalDateTime.parse("2026-11-22T04:37:00"));
        assertEquals(1, plan.actions().size(), plan.toString());
        assertEquals(SweepAction.Kind.RESUME_IF_HEALTHY, plan.actions().get(0).kind());
        assertTrue(
                plan.actions().get(0).why().contains("Node unexpectedly rebooted : Not responding"),
                plan.actions().get(0).why());
        Node other = nodeWithReason(
                "show-node-down-admin.txt",
                "node4",
                "Not responding : Node unexpectedly rebooted [slurm@2026-11-22T04:36:00]");
        assertTrue(
                plan(List.of(other), List.of(), LocalDateTime.parse("2026-11-22T04:37:00"))
                        .isEmpty(),
                "another reason came first: someone else's, left alone");
    }

    /**
     * A node whose reboot is issued is Slurm's until it registers or ResumeTimeout passes: a
     * resume would clear REBOOT_ISSUED. Here its slurmd restarted after the reason was set
     * without the registration ending the reboot, which alone would look like "back".
     */
    @Test
    void aNodeWhoseRebootIsIssuedIsLeftToSlurmEvenWhenItLooksBack() {
        String text = Records.replaceField(
                Records.nodeTextWithReason(
                        "show-node-down-drain-reboot-issued.txt",
                        "node4",
                        "Action:Reboot : reboot issued [root@2026-11-22T04:14:50]"),
                "SlurmdStartTime",
                "2026-11-22T04:14:51");
        LocalDateTime now = LocalDateTime.parse("2026-11-22T04:15:30");
        assertTrue(plan(List.of(new NodeParser().parse(text)), List.of(), now).isEmpty());
        Node withoutTheFlag = new NodeParser().parse(Records.replaceField(text, "State", "DOWN+DRAIN"));
        assertEquals(
                SweepAction.Kind.RESUME_IF_HEALTHY,
                plan(List.of(withoutTheFlag), List.of(), now).actions().get(0).kind(),
                "the same node without REBOOT_ISSUED is the resume rule's");
    }

    /** Job 22, the real donor for job 21, as it looked while its salloc still waited. */
    private static Job pendingDonor(String dependency) {
        String text =
                Records.replaceField(Records.jobText("show-job-expansion-donor.txt"), "JobName", "autoresume-donor-21");
        text = Records.replaceField(text, "JobState", "PENDING");
        return new JobParser().parse(Records.replaceField(text, "Dependency", dependency));
    }

    @Test
    void aPendingDonorWhoseTargetIsNotRunningIsCancelled() {
        Job donor = pendingDonor("expand:21(unfulfilled)");
        LocalDateTime soon = LocalDateTime.parse("2026-11-22T04:19:30");
        assertTrue(plan(List.of(), List.of(donor, job("show-job-running-expanded.txt")), soon)
                .isEmpty());
        SweepPlan gone = plan(List.of(), List.of(donor), soon);
        assertEquals(SweepAction.Kind.CANCEL_ORPHAN_DONOR, gone.actions().get(0).kind());
        assertEquals("22", gone.actions().get(0).target());
        assertTrue(
                gone.actions().get(0).why().contains("21 is gone"),
                gone.actions().get(0).why());
        Job finishedTarget = jobWith("show-job-running-expanded.txt", "JobState", "COMPLETED");
        SweepPlan done = plan(List.of(), List.of(pendingDonor("expand:21(failed)"), finishedTarget), soon);
        assertTrue(
                done.actions().get(0).why().contains("COMPLETED"),
                done.actions().get(0).why());
    }

    /** 23.02 and later are read with --json: its donor is told by the same fields, under data_parser's names. */
    @Test
    void aDonorReadFromJsonIsCancelledWhenItsTargetIsGoneAndAgedBySubmitTime() {
        Job donor = JsonRecords.job(
                "show-job-running.json",
                "{\"job_id\": 22, \"name\": \"autoresume-donor-21\","
                        + " \"job_state\": [\"PENDING\"], \"dependency\": \"expand:21(unfulfilled)\","
                        + " \"submit_time\": " + JsonRecords.time("2026-11-22T04:19:15") + "}");
        SweepPlan gone = plan(List.of(), List.of(donor), LocalDateTime.parse("2026-11-22T04:19:30"));
        assertEquals(SweepAction.Kind.CANCEL_ORPHAN_DONOR, gone.actions().get(0).kind());
        assertTrue(
                gone.actions().get(0).why().contains("Dependency=expand:21(unfulfilled)"),
                gone.actions().get(0).why());

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
        for (Job donor : List.of(
                jobWith("show-job-expansion-donor.txt", "JobName", "autoresume-donor-21"),
                pendingDonor("expand:21(unfulfilled)"))) {
            SweepPlan plan = plan(
                    List.of(),
                    List.of(donor, job("show-job-running-expanded.txt")),
                    LocalDateTime.parse("2026-11-22T04:25:00"));
            assertTrue(plan.actions().isEmpty(), plan.toString());
            assertTrue(plan.leftoverJobs().get(0).why().contains("old (limit 5m00s)"), plan.toString());
        }
    }

    @Test
    void aPendingJobNamedLikeADonorWithoutTheExpandDependencyIsLeftAlone() {
        // The forged name: a user's own job, pending on something else or on nothing.
        for (String dependency : List.of("(null)", "afterok:21(unfulfilled)", "expand:2(unfulfilled)", "expand:211")) {
            SweepPlan plan =
                    plan(List.of(), List.of(pendingDonor(dependency)), LocalDateTime.parse("2026-11-22T04:19:30"));
            assertTrue(plan.actions().isEmpty(), dependency + ": " + plan);
            assertEquals("donor-named-job", plan.leftoverJobs().get(0).kind(), dependency);
        }
    }

    @Test
    void finishedOrOrdinaryJobsAreNeverCancelled() {
        Job emptied = jobWith("show-job-expansion-donor-emptied.txt", "JobName", "autoresume-donor-21");
        Job ordinary = job("show-job-expansion-donor.txt"); // named no-shell
        assertTrue(
                plan(List.of(), List.of(emptied, ordinary), MARKED.plusDays(1)).isEmpty());
    }

    @Test
    void capsHoldBackActionsPastMaxNodesAndSayWhich() {
        List<Node> nodes = new ArrayList<>();
        for (int i = 1; i <= 8; i++) {
            nodes.add(node("show-node-idle-fail.txt", "node" + i));
        }
        SweepPlan plan = plan(policy(3, 100), nodes, List.of(), MARKED.plusMinutes(1));
        assertEquals(
                List.of("node1", "node2", "node3"),
                plan.actions().stream().map(SweepAction::target).toList());
        assertEquals(5, plan.heldBack().size());
        assertTrue(
                plan.heldBack().get(0).why().contains("maxNodes=3"),
                plan.heldBack().get(0).why());
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
        assertTrue(
                plan.heldBack().get(0).why().contains("partition debug has 8 node(s), so at most 2"),
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
        SweepPolicy excluding = new SweepPolicy(
                d.escalateFailAfter(),
                d.notRespondingAfter(),
                true,
                d.completingAfter(),
                d.donorMaxAge(),
                true,
                true,
                10,
                100,
                "node[2-3]",
                List.of(),
                d.healthTimeout(),
                d.lemon());
        SweepPlan plan = plan(
                excluding,
                List.of(node("show-node-idle-fail.txt", "node2"), node("show-node-idle-fail.txt", "node4")),
                List.of(),
                MARKED.plusMinutes(1));
        assertEquals(
                List.of("node4"),
                plan.actions().stream().map(SweepAction::target).toList());
    }

    /** The states each action leaves (real captures) plan nothing, however late the next sweep. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "show-node-idle.txt",
                "show-node-fail-not-responding.txt",
                "show-node-idle-after-reboot.txt",
                "show-node-down-drain-reboot-issued.txt",
                "show-node-idle-drain.txt",
                "show-node-mixed.txt"
            })
    void theStatesAnActionLeavesPlanNothing(String fixture) {
        SweepPlan plan = plan(List.of(node(fixture, "node2")), List.of(), MARKED.plusDays(1));
        assertTrue(plan.isEmpty(), fixture + ": " + plan);
    }

    @Test
    void aNodeKeptAfterAFailedCheckIsNotBackAnyMore() {
        // What the executor leaves: the same IDLE+FAIL node, its reason re-set after the slurmd started.
        Node kept = nodeWithReason(
                "show-node-idle-fail.txt",
                "node2",
                "Action:Replace health check failed: no gpu [root@2026-11-22T04:20:00]");
        assertTrue(plan(List.of(kept), List.of(), LocalDateTime.parse("2026-11-22T04:21:00"))
                .isEmpty());
    }

    @Test
    void aWholeRealClusterListing() {
        List<Node> nodes = new NodeParser().parseAll(Fixtures.read("slurm-22.05", "show-node-all-with-down.txt"));
        SweepPlan plan = plan(policy(10, 100), nodes, List.of(), LocalDateTime.parse("2026-11-22T05:00:00"));
        assertEquals(
                List.of("node2"),
                plan.actions().stream().map(SweepAction::target).toList(),
                plan.toString());
        assertEquals(SweepAction.Kind.MARK_REPLACE, plan.actions().get(0).kind());
    }

    @Test
    void aNodeNotRespondingAgainWithSlurmdNewerIsNotBack() {
        Node silent = nodeWith("show-node-idle-fail.txt", "node2", "State", "IDLE+FAIL+NOT_RESPONDING");
        assertTrue(plan(List.of(silent), List.of(), MARKED.plusMinutes(1)).isEmpty());
    }
}
