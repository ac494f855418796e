package org.slurmautoresume.nodeops.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.slurmautoresume.slurm.parse.Records.node;
import static org.slurmautoresume.slurm.parse.Records.nodeWithReason;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.nodeops.admin.NodeUpdater;
import org.slurmautoresume.nodeops.admin.RecordingRunner;
import org.slurmautoresume.nodeops.health.NodeHealth;
import org.slurmautoresume.slurm.model.Node;

class SweepExecutorTest {

    private static final LocalDateTime NOW = LocalDateTime.parse("2026-11-22T06:00:00");

    private final RecordingRunner slurm = new RecordingRunner();
    private final List<String> checked = new ArrayList<>();

    private SweepExecutor executor(boolean healthy) {
        NodeHealth fake = node -> {
            checked.add(node.name());
            return healthy
                    ? NodeHealth.Verdict.healthy("fine")
                    : NodeHealth.Verdict.unhealthy("reboot", "gpu\nfell off");
        };
        return new SweepExecutor(new NodeUpdater(slurm.runner), fake);
    }

    private static SweepAction action(SweepAction.Kind kind, String target, String reason) {
        return new SweepAction(kind, target, List.of("debug"), reason, "seen");
    }

    private static SweepPlan plan(SweepAction... actions) {
        return new SweepPlan(List.of(actions), List.of(), List.of());
    }

    @Test
    void eachActionIsOneSlurmCommand() {
        List<Node> nodes = List.of(
                node("show-node-mixed-fail.txt", "node3"),
                node("show-node-down-not-responding.txt", "node2"),
                node("show-node-idle-completing.txt", "node4"),
                node("show-node-mixed-completing.txt", "node1"));
        SweepReport report = executor(true)
                .execute(
                        plan(
                                action(SweepAction.Kind.CANCEL_ORPHAN_DONOR, "22", ""),
                                action(SweepAction.Kind.MARK_REPLACE, "node2", "Action:Replace"),
                                action(
                                        SweepAction.Kind.DRAIN_STUCK_COMPLETING,
                                        "node1",
                                        "stuck COMPLETING job 12: drained while other jobs run"),
                                action(
                                        SweepAction.Kind.DOWN_STUCK_COMPLETING,
                                        "node4",
                                        "Action:Reboot stuck COMPLETING job 11"),
                                action(SweepAction.Kind.ESCALATE_TO_DOWN, "node3", "Action:Replace")),
                        nodes,
                        5,
                        NOW,
                        false);
        assertEquals(
                List.of(
                        List.of("scancel", "22"),
                        List.of("scontrol", "update", "nodename=node2", "state=fail", "reason=Action:Replace"),
                        List.of(
                                "scontrol",
                                "update",
                                "nodename=node1",
                                "state=drain",
                                "reason=stuck COMPLETING job 12: drained while other jobs run"),
                        List.of(
                                "scontrol",
                                "update",
                                "nodename=node4",
                                "state=down",
                                "reason=Action:Reboot stuck COMPLETING job 11"),
                        List.of("scontrol", "update", "nodename=node3", "state=down", "reason=Action:Replace")),
                slurm.changes);
        assertEquals("acted", report.status());
        assertTrue(report.actions().stream().allMatch(o -> o.result().equals("done")), report.toString());
        assertEquals(4, report.nodesSeen());
        assertEquals(5, report.jobsSeen());
    }

    @Test
    void aHealthyReturnedNodeIsResumed() {
        Node back = node("show-node-idle-fail.txt", "node2");
        SweepReport report = executor(true)
                .execute(plan(action(SweepAction.Kind.RESUME_IF_HEALTHY, "node2", "")), List.of(back), 0, NOW, false);
        assertEquals(List.of("node2"), checked);
        assertEquals(List.of(List.of("scontrol", "update", "nodename=node2", "state=resume")), slurm.changes);
        assertEquals("done", report.actions().get(0).result());
        assertTrue(
                report.actions().get(0).message().contains("health check passed"),
                report.actions().get(0).message());
    }

    @Test
    void anUnhealthyReturnedNodeIsKeptOutWithTheVerdictAsItsReason() {
        Node back = node("show-node-idle-fail.txt", "node2");
        SweepReport report = executor(false)
                .execute(plan(action(SweepAction.Kind.RESUME_IF_HEALTHY, "node2", "")), List.of(back), 0, NOW, false);
        assertEquals(
                List.of(List.of(
                        "scontrol",
                        "update",
                        "nodename=node2",
                        "state=fail",
                        "reason=Action:Reboot health check failed: gpu fell off")),
                slurm.changes);
        assertEquals("kept", report.actions().get(0).result());
        assertEquals("acted", report.status());
    }

    /** A full filesystem is no fault of the node: the node stays out as it is, with no new mark. */
    @Test
    void aReturnedNodeShortOfSpaceIsLeftAsItIs() {
        Node back = node("show-node-idle-fail.txt", "node2");
        NodeHealth shortOfSpace = node ->
                NodeHealth.Verdict.unhealthy(NodeHealth.Verdict.FREE_SPACE, "autoresume: disk full: /scratch 99% used");
        SweepReport report = new SweepExecutor(new NodeUpdater(slurm.runner), shortOfSpace)
                .execute(plan(action(SweepAction.Kind.RESUME_IF_HEALTHY, "node2", "")), List.of(back), 0, NOW, false);
        assertEquals(List.of(), slurm.changes);
        assertEquals("kept", report.actions().get(0).result());
    }

    @Test
    void anUnhealthyDownNodeStaysDown() {
        Node rebooted = nodeWithReason(
                "show-node-down-admin.txt", "node4", "Node unexpectedly rebooted [slurm@2026-11-22T05:00:00]");
        executor(false)
                .execute(
                        plan(action(SweepAction.Kind.RESUME_IF_HEALTHY, "node4", "")),
                        List.of(rebooted),
                        0,
                        NOW,
                        false);
        assertEquals("state=down", slurm.changes.get(0).get(3));
    }

    @Test
    void aDryRunRunsNothing() {
        Node back = node("show-node-idle-fail.txt", "node2");
        SweepReport report = executor(true)
                .execute(
                        plan(
                                action(SweepAction.Kind.RESUME_IF_HEALTHY, "node2", ""),
                                action(SweepAction.Kind.CANCEL_ORPHAN_DONOR, "22", "")),
                        List.of(back),
                        1,
                        NOW,
                        true);
        assertTrue(slurm.changes.isEmpty());
        assertTrue(checked.isEmpty());
        assertTrue(report.dryRun());
        assertEquals(
                List.of("planned", "planned"),
                report.actions().stream().map(SweepReport.Outcome::result).toList());
        assertEquals("acted", report.status());
    }

    @Test
    void slurmsRefusalIsDeniedAndTheSweepFailed() {
        slurm.refuseChanges("slurm_update error: Invalid user id\n");
        SweepReport report = executor(true)
                .execute(
                        plan(action(SweepAction.Kind.MARK_REPLACE, "node2", "Action:Replace")),
                        List.of(node("show-node-down-not-responding.txt", "node2")),
                        0,
                        NOW,
                        false);
        assertEquals("denied", report.actions().get(0).result());
        assertTrue(
                report.actions().get(0).message().contains("need root"),
                report.actions().get(0).message());
        assertEquals(SweepReport.Status.FAILED, report.statusValue());
    }

    @Test
    void heldBackActionsMakeTheStatusHeldBack() {
        SweepAction held = action(SweepAction.Kind.ESCALATE_TO_DOWN, "node3", "Action:Replace");
        SweepPlan plan = new SweepPlan(List.of(), List.of(new SweepPlan.Held(held, "cap maxNodes=0")), List.of());
        SweepReport report = executor(true).execute(plan, List.of(), 0, NOW, false);
        assertEquals("held-back", report.status());
        assertEquals("cap maxNodes=0", report.heldBack().get(0).heldBecause());
        assertEquals("escalate-to-down", report.heldBack().get(0).kind());
    }

    @Test
    void nothingPlannedIsNothingToDo() {
        assertEquals(
                "nothing-to-do",
                executor(true).execute(plan(), List.of(), 0, NOW, false).status());
    }

    @Test
    void longVerdictsAreCutToOneShortLine() {
        String cut = SweepExecutor.oneLine("a\n".repeat(300));
        assertTrue(cut.length() <= SweepExecutor.MAX_REASON && !cut.contains("\n"), cut);
    }
}
