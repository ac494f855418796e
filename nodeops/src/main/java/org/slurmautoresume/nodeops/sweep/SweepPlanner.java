package org.slurmautoresume.nodeops.sweep;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slurmautoresume.nodeops.admin.NodePhase;
import org.slurmautoresume.nodeops.lemon.FaultHistory;
import org.slurmautoresume.nodeops.lemon.LemonHold;
import org.slurmautoresume.nodeops.lemon.LemonVerdict;
import org.slurmautoresume.slurm.client.RebootRules;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;

/**
 * Decides one sweep from what Slurm reported: a pure function of nodes, jobs, policy and the
 * time, with no I/O, so every rule is tested over recorded scontrol output. Each rule matches
 * only a state its own action leaves, so a second sweep right after plans nothing new.
 */
public final class SweepPlanner {

    /** A finding's kind: a node the site's NHC drained ({@code NHC: ...}), reported and left to NHC. */
    public static final String NHC_DRAINED = "nhc-drained";

    /**
     * A finding's kind: a node FAIL with Action:Replace past the limit, not set DOWN because jobs
     * are still on it. FAIL already keeps new jobs away; DOWN would kill those that run.
     */
    public static final String ESCALATION_WAITS_FOR_JOBS = "escalation-waits-for-jobs";

    /** A finding's kind: see {@link StuckCompleting}. */
    public static final String STUCK_COMPLETING_WAITS_FOR_JOBS = StuckCompleting.WAITS_FOR_JOBS;

    /**
     * slurmctld's reason for a node that registered with a boot time it did not ask for. Matched
     * as the first reason: a later one (Not responding, say) is appended after it with " : ".
     */
    static final String UNEXPECTED_REBOOT = "Node unexpectedly rebooted";

    /**
     * A finding's kind: the lemon rule is on but Slurm's accounting could not be read, so nodes
     * back under their hostname are resumed as they would be without the rule.
     */
    public static final String LEMON_HISTORY_UNAVAILABLE = "lemon-history-unavailable";

    private final SweepPolicy policy;

    public SweepPlanner(SweepPolicy policy) {
        this.policy = policy;
    }

    public SweepPlan plan(List<Node> nodes, List<Job> jobs, LocalDateTime now) {
        return plan(nodes, jobs, false, now);
    }

    /**
     * {@code someUnreadable}: scontrol printed job records that could not be read, so a job
     * missing from {@code jobs} may still exist, and "its target is gone" proves nothing.
     */
    public SweepPlan plan(List<Node> nodes, List<Job> jobs, boolean someUnreadable, LocalDateTime now) {
        return plan(nodes, jobs, someUnreadable, FaultHistory.none(), now);
    }

    /**
     * The nodes whose fault history the plan needs: those it would resume as back under their
     * hostname, when the lemon rule is on. Reading the history costs a query of Slurm's
     * accounting, so a pass with no such node makes none.
     */
    public List<String> nodesToJudge(List<Node> nodes) {
        if (!policy.lemon().enabled() || !policy.resumeReturned()) {
            return List.of();
        }
        Set<String> excluded = excluded();
        return nodes.stream()
                .filter(n -> !excluded.contains(n.name()))
                .filter(SweepPlanner::isReturnedFromAMark)
                .map(Node::name)
                .toList();
    }

    /** {@code history}: the fault marks of the nodes {@link #nodesToJudge} named, or why they are unknown. */
    public SweepPlan plan(
            List<Node> nodes, List<Job> jobs, boolean someUnreadable, FaultHistory history, LocalDateTime now) {
        Set<String> excluded = excluded();
        List<SweepAction> actions = new ArrayList<>();
        List<SweepPlan.Finding> findings = new ArrayList<>();
        List<Node> completing = new ArrayList<>();
        NodeOccupants occupants = new NodeOccupants(jobs);
        for (Node node : nodes) {
            if (excluded.contains(node.name())) {
                continue;
            }
            if (node.state().has("COMPLETING")) {
                completing.add(node);
            }
            nodeRule(node, occupants, history, now, findings).ifPresent(actions::add);
            if (node.state().isDrain() && node.reason().isEmpty()) {
                findings.add(new SweepPlan.Finding(
                        "drained-without-reason",
                        node.name(),
                        "the node is " + node.state().display()
                                + " with no reason: nobody recorded why it was taken out"));
            }
            if (node.drainedByNhc()) {
                // The site's NHC found the node bad: its verdict, counted and shown, never overridden.
                // NHC returns the node to service itself once its checks pass; a job's supervisor and
                // the agent take the drain as the node's fault (Action:Replace, NHC's words kept).
                findings.add(new SweepPlan.Finding(
                        NHC_DRAINED,
                        node.name(),
                        "drained by the site's health check: "
                                + node.reason().get().text()));
            }
            if (!policy.markNotResponding() && isSilentTooLong(node, now)) {
                findings.add(new SweepPlan.Finding("not-responding", node.name(), silentWhy(node, now)));
            }
        }
        actions.addAll(new StuckCompleting(policy.completingAfter()).plan(completing, occupants, now, findings));
        List<SweepPlan.LeftoverJob> leftovers = new ArrayList<>(ExpansionLeftovers.emptiedDonors(jobs, now));
        actions.addAll(orphanDonors(jobs, someUnreadable, now, leftovers));
        SweepPlan capped = SweepCaps.apply(actions, nodes, policy);
        return new SweepPlan(capped.actions(), capped.heldBack(), findings, leftovers);
    }

    /**
     * The one rule a node's state can match, if any (the states are disjoint). A node with a
     * reboot asked for or under way matches none: Slurm ends that state itself (back in service,
     * or DOWN "reboot timed out" after ResumeTimeout), a resume would call the reboot off or make
     * Slurm stop waiting for it, and a mark would race it.
     */
    private Optional<SweepAction> nodeRule(
            Node node,
            NodeOccupants occupants,
            FaultHistory history,
            LocalDateTime now,
            List<SweepPlan.Finding> findings) {
        if (RebootRules.pending(node.state())) {
            return Optional.empty();
        }
        Optional<NodeReason> reason = node.reason();
        if (isReturnedFromAMark(node)) {
            if (!policy.resumeReturned()) {
                return Optional.empty();
            }
            Optional<SweepAction> hold = lemonHold(node, history, now, findings);
            if (hold.isPresent()) {
                return hold;
            }
            return Optional.of(action(
                    SweepAction.Kind.RESUME_IF_HEALTHY,
                    node,
                    "",
                    node.state().display() + " with " + reason.get().text() + " set "
                            + reason.get().time().get()
                            + ", and its slurmd started "
                            + node.slurmdStartTime().get()
                            + ": back under the same hostname"));
        }
        if (reason.isPresent()
                && reason.get().startsWith(UNEXPECTED_REBOOT)
                && node.state().isDown()
                && !node.state().notResponding()
                && policy.resumeUnexpectedReboot()) {
            return Optional.of(action(
                    SweepAction.Kind.RESUME_IF_HEALTHY,
                    node,
                    "",
                    node.state().display() + " with reason \"" + reason.get().text() + "\" and responding"));
        }
        if (NodePhase.isMidReplacement(node)
                && node.state().isFail()
                && !node.state().isDown()
                && !policy.escalateFailAfter().isZero()) {
            Optional<Duration> age = ageOfReason(node, now);
            if (age.isPresent() && age.get().compareTo(policy.escalateFailAfter()) > 0) {
                String seen = node.state().display() + " with " + reason.get().text() + " for "
                        + Ages.describe(age.get()) + " (limit " + Ages.describe(policy.escalateFailAfter()) + ")";
                // DOWN kills every job on the node, and any user can ask for the mark: never while a job is there.
                Optional<String> jobs = occupants.otherWork(node, NodeOccupants.ANY_JOB_FLAGS, job -> false);
                if (jobs.isPresent()) {
                    findings.add(new SweepPlan.Finding(
                            ESCALATION_WAITS_FOR_JOBS,
                            node.name(),
                            seen + "; " + jobs.get()
                                    + ": not set DOWN, which would kill them; FAIL already keeps new jobs away"));
                    return Optional.empty();
                }
                return Optional.of(action(
                        SweepAction.Kind.ESCALATE_TO_DOWN, node, reason.get().text(), seen + "; no job is left on it"));
            }
        }
        if (policy.markNotResponding() && isSilentTooLong(node, now)) {
            return Optional.of(action(SweepAction.Kind.MARK_REPLACE, node, "Action:Replace", silentWhy(node, now)));
        }
        return Optional.empty();
    }

    /** Marked by the toolkit, and its slurmd registered since: the rule that resumes a node. */
    private static boolean isReturnedFromAMark(Node node) {
        return !RebootRules.pending(node.state()) && NodePhase.hasActionReason(node) && NodePhase.isBack(node);
    }

    /**
     * A node the toolkit marked faulty as often as the lemon rule allows is kept out with the
     * lemon reason, not resumed. The mark it is back from counts: Slurm recorded it too. Without
     * the history the node is resumed as it would be without the rule, and a finding says so.
     */
    private Optional<SweepAction> lemonHold(
            Node node, FaultHistory history, LocalDateTime now, List<SweepPlan.Finding> findings) {
        if (!policy.lemon().enabled()) {
            return Optional.empty();
        }
        if (history.unavailable().isPresent()) {
            findings.add(new SweepPlan.Finding(
                    LEMON_HISTORY_UNAVAILABLE,
                    node.name(),
                    "its fault history could not be read ("
                            + history.unavailable().get() + "): resumed without the lemon rule"));
            return Optional.empty();
        }
        LemonVerdict verdict = policy.lemon().judge(history.of(node.name()), now);
        if (!verdict.lemon()) {
            return Optional.empty();
        }
        return Optional.of(action(
                SweepAction.Kind.HOLD_LEMON,
                node,
                LemonHold.reason(verdict),
                node.state().display() + " with " + node.reason().get().text() + ", back under the same hostname, but "
                        + verdict.why() + ": kept out for an administrator"));
    }

    private Set<String> excluded() {
        return policy.excludeNodes().isBlank() ? Set.of() : new HashSet<>(Hostlist.expand(policy.excludeNodes()));
    }

    /** DOWN and not responding longer than the limit, not yet marked for an action. */
    private boolean isSilentTooLong(Node node, LocalDateTime now) {
        if (!node.state().isDown()
                || !node.state().notResponding()
                || node.state().isFail()
                || NodePhase.hasActionReason(node)) {
            return false;
        }
        Optional<Duration> age = ageOfReason(node, now);
        return age.isPresent() && age.get().compareTo(policy.notRespondingAfter()) > 0;
    }

    private String silentWhy(Node node, LocalDateTime now) {
        return node.state().display() + " (reason \"" + node.reason().get().text() + "\") for "
                + Ages.describe(ageOfReason(node, now).get()) + " (limit " + Ages.describe(policy.notRespondingAfter())
                + ")";
    }

    /**
     * Jobs named like expansion donors whose recovery is over. The name only picks the
     * candidates; the cancel needs Slurm's own word that the job is a pending expansion that can
     * never start. Anything else the old rule cancelled is reported in {@code leftovers}.
     */
    private List<SweepAction> orphanDonors(
            List<Job> jobs, boolean someUnreadable, LocalDateTime now, List<SweepPlan.LeftoverJob> leftovers) {
        Map<String, Job> byId = null;
        List<SweepAction> actions = new ArrayList<>();
        for (Job donor : jobs) {
            Optional<JobId> targetOf = SlurmControl.donorTarget(donor.name());
            // COMPLETING: a cancel is already under way.
            if (targetOf.isEmpty() || donor.state().isFinished() || donor.state() == JobState.COMPLETING) {
                continue;
            }
            if (byId == null) {
                byId = new HashMap<>();
                for (Job job : jobs) {
                    byId.put(job.jobId(), job);
                }
            }
            String targetId = targetOf.get().toString();
            Job target = byId.get(targetId);
            Optional<LocalDateTime> submitted = donor.submitTime();
            Optional<Duration> age = submitted.map(t -> Duration.between(t, now));
            String why = null;
            if (target == null && someUnreadable) {
                continue;
            }
            if (target == null || target.state() != JobState.RUNNING) {
                why = "its target job " + targetId + " is "
                        + (target == null ? "gone" : target.state().name()) + ", not RUNNING";
            } else if (age.isPresent() && age.get().compareTo(policy.donorMaxAge()) > 0) {
                why = "it is " + Ages.describe(age.get()) + " old (limit " + Ages.describe(policy.donorMaxAge())
                        + "): recovery empties a donor within seconds";
            }
            if (why == null) {
                continue;
            }
            if (ExpansionLeftovers.pendingExpansionOfEndedJob(donor, targetOf.get(), Optional.ofNullable(target))) {
                actions.add(new SweepAction(
                        SweepAction.Kind.CANCEL_ORPHAN_DONOR,
                        donor.jobId(),
                        List.of(),
                        "",
                        "expansion donor job " + donor.jobId() + " (" + donor.name() + ", " + donor.state()
                                + ", Dependency=" + donor.dependency() + "): " + why
                                + "; Slurm will never start it"));
            } else {
                leftovers.add(ExpansionLeftovers.donorNamed(donor, why));
            }
        }
        return actions;
    }

    private static Optional<Duration> ageOfReason(Node node, LocalDateTime now) {
        return node.reason().flatMap(NodeReason::time).map(t -> Duration.between(t, now));
    }

    private static SweepAction action(SweepAction.Kind kind, Node node, String reason, String why) {
        return new SweepAction(kind, node.name(), node.partitions(), reason, why);
    }
}
