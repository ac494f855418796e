package org.slurmautoresume.agent.server;

import java.io.IOException;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.agent.protocol.NodeDecision;
import org.slurmautoresume.nodeops.lemon.FaultHistory;
import org.slurmautoresume.nodeops.lemon.LemonHold;
import org.slurmautoresume.nodeops.lemon.LemonRule;
import org.slurmautoresume.nodeops.lemon.LemonVerdict;
import org.slurmautoresume.nodeops.sweep.SweepPlanner;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.client.RebootRules;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.client.WriteResult;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;
import org.slurmautoresume.slurm.probe.NodeProber;

/**
 * The agent's marks at a job's request, with their provenance: every mark is written to the
 * {@link MarkLedger} before {@code scontrol update} runs (no record, no mark), and {@code resume}
 * and {@code replace} apply only to a node the ledger says the agent marked for that same job and
 * whose reason in Slurm is still that mark (the agent's action word, set by the agent's user, with
 * the time Slurm stamped when the agent marked it). An administrator's drain, a health check's or
 * the Xid watch's mark is never in the ledger, so never resumed at a job's request.
 *
 * <p>Nor is a lemon: before it returns a node (a resume, a reboot that Slurm ends with
 * {@code nextstate=RESUME}) the agent counts the node's fault marks in Slurm's accounting by the
 * site's lemon rule, as the sweep does, and holds a node that reached it with the sweep's hold
 * ({@link LemonHold}) instead.
 */
final class OwnMarks {

    private static final Logger LOG = LoggerFactory.getLogger(OwnMarks.class);

    private final SlurmClient slurm;
    private final SlurmControl control;
    private final NodeProber prober;
    private final MarkLedger ledger;
    private final MarkProvenance provenance;
    private volatile LemonRule lemonRule = LemonRule.DEFAULT;
    private volatile Supplier<LocalDateTime> clock = LocalDateTime::now;

    OwnMarks(SlurmClient slurm, SlurmControl control, NodeProber prober, MarkLedger ledger, MarkProvenance provenance) {
        this.slurm = Objects.requireNonNull(slurm);
        this.control = Objects.requireNonNull(control);
        this.prober = Objects.requireNonNull(prober);
        this.ledger = Objects.requireNonNull(ledger);
        this.provenance = Objects.requireNonNull(provenance);
    }

    /** The site's lemon rule ({@code --lemon-policy}), judged at {@code clock}'s time (Slurm's accounting is in local time). */
    void useLemonRule(LemonRule rule, Supplier<LocalDateTime> clock) {
        this.lemonRule = Objects.requireNonNull(rule);
        this.clock = Objects.requireNonNull(clock);
    }

    /** The agent's mark for this job that Slurm still shows on the node, if any. */
    Optional<MarkLedger.Mark> standing(Job job, Node node) {
        return provenance.standing(job, node);
    }

    /** Records, then makes, the mark; the record holds the reason time Slurm stamped on it. */
    NodeDecision mark(Job job, NodeMark mark, NodeMark.Action action, String evidence, String what) {
        String node = mark.node();
        Optional<MarkLedger.Mark> before = ledger.markOf(node);
        MarkLedger.Mark entry = new MarkLedger.Mark(
                node,
                job.jobId(),
                JobAuthority.owner(job),
                action.word(),
                mark.state().word(),
                MarkLedger.now(),
                null);
        try {
            ledger.record(entry);
        } catch (IOException e) {
            return new NodeDecision(
                    node,
                    NodeDecision.REFUSED,
                    evidence,
                    "the agent cannot record the mark in its" + " state file (" + e.getMessage() + "): not marked");
        }
        WriteResult write = control.mark(mark);
        try {
            if (!write.ok()) {
                if (before.isPresent()) {
                    ledger.record(before.get());
                } else {
                    ledger.forget(node);
                }
            } else {
                Optional<String> stamped = lookUp(node)
                        .node()
                        .flatMap(Node::reason)
                        .flatMap(NodeReason::time)
                        .map(Object::toString);
                if (stamped.isPresent()) {
                    ledger.record(new MarkLedger.Mark(
                            node,
                            entry.jobId(),
                            entry.owner(),
                            entry.action(),
                            entry.state(),
                            entry.markedAt(),
                            stamped.get()));
                }
            }
        } catch (IOException e) {
            LOG.warn("could not update the agent's record of its mark of {}: {}", node, e.getMessage());
        }
        if (!write.ok()) {
            return new NodeDecision(node, NodeDecision.FAILED, evidence, write.message());
        }
        return new NodeDecision(node, NodeDecision.MARKED, evidence, what + " (`" + write.command() + "`)");
    }

    NodeDecision resume(Job job, String name) {
        NodeLookup lookup = lookUp(name);
        if (lookup.refusal() != null) {
            return lookup.refusal();
        }
        Optional<String> rebooting = RebootRules.whyNoResume(lookup.node().get());
        if (rebooting.isPresent()) {
            return new NodeDecision(name, NodeDecision.REFUSED, lookup.slurmSays(), rebooting.get());
        }
        Optional<String> notOurs = whyNotStanding(job, lookup.node().get(), null);
        if (notOurs.isPresent()) {
            return new NodeDecision(name, NodeDecision.REFUSED, lookup.slurmSays(), notOurs.get());
        }
        Node node = lookup.node().get();
        if (node.state().notResponding()) {
            return new NodeDecision(
                    name, NodeDecision.REFUSED, lookup.slurmSays(), "the node's slurmd is not responding yet");
        }
        Optional<String> silent = prober.unreachable(node);
        if (silent.isPresent()) {
            return new NodeDecision(
                    name,
                    NodeDecision.REFUSED,
                    silent.get() + "; " + lookup.slurmSays(),
                    "the node's slurmd is not reachable yet");
        }
        LemonCheck lemon = lemonCheck(name);
        if (lemon.verdict().isPresent()) {
            return hold(node, lemon.verdict().get(), lookup.slurmSays(), "resumed");
        }
        WriteResult write = control.resume(name);
        if (!write.ok()) {
            return new NodeDecision(name, NodeDecision.FAILED, lookup.slurmSays(), write.message());
        }
        forget(name, "resumed");
        return new NodeDecision(
                name,
                NodeDecision.RESUMED,
                lookup.slurmSays(),
                "returned to service (`" + write.command() + "`)" + lemon.unapplied());
    }

    /**
     * The lemon rule on a node about to return to service: its verdict when the node is a lemon
     * (empty otherwise), and a note when the rule could not be applied. The mark the node is back
     * from counts: Slurm's accounting holds it too.
     */
    record LemonCheck(Optional<LemonVerdict> verdict, String unapplied) {}

    LemonCheck lemonCheck(String name) {
        LemonRule rule = lemonRule;
        if (!rule.enabled()) {
            return new LemonCheck(Optional.empty(), "");
        }
        LocalDateTime now = clock.get();
        FaultHistory history = FaultHistory.read(slurm, List.of(name), rule, now);
        if (history.unavailable().isPresent()) {
            // As the sweep: without the history the node returns as it would without the rule.
            String why = "its fault history could not be read ("
                    + history.unavailable().get() + "): returned without the lemon rule";
            LOG.warn("{} {}: {}", SweepPlanner.LEMON_HISTORY_UNAVAILABLE, name, why);
            return new LemonCheck(Optional.empty(), "; " + SweepPlanner.LEMON_HISTORY_UNAVAILABLE + ": " + why);
        }
        LemonVerdict verdict = rule.judge(history.of(name), now);
        return new LemonCheck(verdict.lemon() ? Optional.of(verdict) : Optional.empty(), "");
    }

    /**
     * Holds a lemon for an administrator, as the sweep does, instead of returning it: only ever
     * called over the agent's own standing mark for the job, which the hold replaces, so the job's
     * claim on the node ends and the agent's record of the mark goes with it.
     */
    NodeDecision hold(Node node, LemonVerdict verdict, String evidence, String instead) {
        String name = node.name();
        WriteResult write = control.mark(LemonHold.mark(name, node, LemonHold.reason(verdict)));
        if (!write.ok()) {
            return new NodeDecision(
                    name,
                    NodeDecision.FAILED,
                    evidence,
                    "not " + instead + ": " + verdict.why() + ", but holding it for an administrator failed: "
                            + write.message());
        }
        forget(name, "held as a lemon");
        return new NodeDecision(
                name,
                NodeDecision.HELD_LEMON,
                evidence,
                "not " + instead + ": " + verdict.why() + "; held for an administrator (`" + write.command()
                        + "`), no longer the job's: it needs another node");
    }

    private void forget(String name, String what) {
        try {
            ledger.forget(name);
        } catch (IOException e) {
            LOG.warn("{} {} but could not drop its mark from the agent's record: {}", what, name, e.getMessage());
        }
    }

    /** Why the node's state is not the agent's standing mark for this job ({@link MarkProvenance}); empty when it is. */
    Optional<String> whyNotStanding(Job job, Node node, NodeMark.Action only) {
        return provenance.whyNotStanding(job, node, only);
    }

    /**
     * After the agent's own write over its standing mark (a reboot request sets {@code Action:Reboot}
     * anew): the ledger takes the new stamp, read from {@code after} (the node as read back after
     * that write), so the mark still stands as the agent's.
     */
    void restamp(String name, NodeMark.Action action, Optional<Node> after) {
        Optional<MarkLedger.Mark> entry = ledger.markOf(name);
        if (entry.isEmpty()) {
            return;
        }
        Optional<String> stamped =
                after.flatMap(Node::reason).flatMap(NodeReason::time).map(Object::toString);
        MarkLedger.Mark mark = entry.get();
        try {
            ledger.record(new MarkLedger.Mark(
                    name,
                    mark.jobId(),
                    mark.owner(),
                    action.word(),
                    mark.state(),
                    mark.markedAt(),
                    stamped.orElse(null)));
        } catch (IOException e) {
            LOG.warn("could not record the new stamp of the agent's mark of {}: {}", name, e.getMessage());
        }
    }

    /** A node as Slurm reports it, with its state in words; or why it cannot be read. */
    record NodeLookup(String name, Optional<Node> node, String slurmSays, NodeDecision refusal) {}

    NodeLookup lookUp(String name) {
        Optional<Node> found;
        try {
            found = slurm.node(name);
        } catch (SlurmException e) {
            return new NodeLookup(
                    name,
                    Optional.empty(),
                    null,
                    new NodeDecision(
                            name, NodeDecision.REFUSED, null, "could not read the node from Slurm: " + e.getMessage()));
        }
        if (found.isEmpty()) {
            return new NodeLookup(
                    name,
                    found,
                    null,
                    new NodeDecision(name, NodeDecision.REFUSED, null, "Slurm does not know the node"));
        }
        Node node = found.get();
        String slurmSays = "Slurm state " + node.state().display()
                + node.reason()
                        .map(r -> ", reason \"" + r.text() + "\""
                                + r.user().map(u -> " set by " + u).orElse(""))
                        .orElse("");
        return new NodeLookup(name, found, slurmSays, null);
    }
}
