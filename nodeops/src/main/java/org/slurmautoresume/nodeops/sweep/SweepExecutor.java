package org.slurmautoresume.nodeops.sweep;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slurmautoresume.nodeops.admin.NodeUpdater;
import org.slurmautoresume.nodeops.health.NodeHealth;
import org.slurmautoresume.nodeops.lemon.LemonHold;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.Node;

/**
 * Applies a {@link SweepPlan}: one Slurm command per action, a health check before every
 * resume. Never throws for a failed action; the report says which failed and why. A dry run
 * reports every action as planned and runs nothing.
 */
public final class SweepExecutor {

    static final int MAX_REASON = 200;

    private final NodeUpdater updater;
    private final NodeHealth health;

    public SweepExecutor(NodeUpdater updater, NodeHealth health) {
        this.updater = Objects.requireNonNull(updater);
        this.health = Objects.requireNonNull(health);
    }

    public SweepReport execute(SweepPlan plan, List<Node> nodes, int jobsSeen, LocalDateTime now, boolean dryRun) {
        Map<String, Node> byName = new HashMap<>();
        nodes.forEach(n -> byName.put(n.name(), n));
        List<SweepReport.Outcome> outcomes = new ArrayList<>();
        for (SweepAction action : plan.actions()) {
            outcomes.add(
                    dryRun
                            ? outcome(action, SweepReport.Outcome.PLANNED, "", "")
                            : apply(action, byName.get(action.target())));
        }
        List<SweepReport.HeldBack> held = plan.heldBack().stream()
                .map(h -> new SweepReport.HeldBack(
                        h.action().kind().word(),
                        h.action().target(),
                        h.action().why(),
                        h.why()))
                .toList();
        return new SweepReport(
                        now.toString(),
                        dryRun,
                        nodes.size(),
                        jobsSeen,
                        SweepReport.statusOf(outcomes, held).word(),
                        outcomes,
                        held,
                        plan.findings())
                .withLeftoverJobs(plan.leftoverJobs());
    }

    private SweepReport.Outcome apply(SweepAction action, Node node) {
        String target = action.target();
        return switch (action.kind()) {
            case CANCEL_ORPHAN_DONOR -> done(action, updater.cancelJob(JobId.parse(target)));
            case MARK_REPLACE -> done(action, updater.mark(new NodeMark(target, NodeMark.State.FAIL, action.reason())));
            case DRAIN_STUCK_COMPLETING ->
                done(action, updater.mark(new NodeMark(target, NodeMark.State.DRAIN, action.reason())));
            case DOWN_STUCK_COMPLETING, ESCALATE_TO_DOWN ->
                done(action, updater.mark(new NodeMark(target, NodeMark.State.DOWN, action.reason())));
            case RESUME_IF_HEALTHY -> resumeIfHealthy(action, node);
            case HOLD_LEMON -> done(action, updater.mark(LemonHold.mark(target, node, action.reason())));
        };
    }

    private SweepReport.Outcome resumeIfHealthy(SweepAction action, Node node) {
        NodeHealth.Verdict verdict = health.check(node);
        if (verdict.healthy()) {
            SweepReport.Outcome resumed = done(action, updater.resume(node.name()));
            return new SweepReport.Outcome(
                    resumed.kind(),
                    resumed.target(),
                    resumed.result(),
                    resumed.why(),
                    resumed.command(),
                    resumed.message().isEmpty() ? "health check passed: " + verdict.detail() : resumed.message());
        }
        if (verdict.onlyShortOfSpace()) {
            // A user can fill a filesystem and empty it again: no fault to mark. The node stays out
            // as it is, and a later sweep resumes it once the check passes.
            return outcome(
                    action,
                    SweepReport.Outcome.KEPT,
                    "",
                    "left as it is: " + verdict.detail() + "; resumed once the health check passes");
        }
        // Kept out with the verdict as its reason: the new reason time is after the slurmd's
        // start, so the next sweep no longer sees the node as freshly back.
        NodeMark.Action needs = verdict.action().equals("reboot") ? NodeMark.Action.REBOOT : NodeMark.Action.REPLACE;
        String reason = oneLine(needs.reason("health check failed: " + verdict.detail()));
        NodeUpdater.Result kept = updater.mark(
                new NodeMark(node.name(), node.state().isDown() ? NodeMark.State.DOWN : NodeMark.State.FAIL, reason));
        if (!kept.ok()) {
            return done(action, kept);
        }
        return outcome(action, SweepReport.Outcome.KEPT, kept.command(), "health check failed: " + verdict.detail());
    }

    private static SweepReport.Outcome done(SweepAction action, NodeUpdater.Result result) {
        String word = result.ok()
                ? SweepReport.Outcome.DONE
                : result.denied() ? SweepReport.Outcome.DENIED : SweepReport.Outcome.FAILED;
        return outcome(action, word, result.command(), result.message());
    }

    private static SweepReport.Outcome outcome(SweepAction action, String result, String command, String message) {
        return new SweepReport.Outcome(action.kind().word(), action.target(), result, action.why(), command, message);
    }

    static String oneLine(String text) {
        String flat = text.replaceAll("\\s+", " ").strip();
        return flat.length() <= MAX_REASON ? flat : flat.substring(0, MAX_REASON - 3) + "...";
    }
}
