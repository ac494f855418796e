package org.slurmautoresume.agent.server;

import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.agent.protocol.NodeDecision;
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
 */
final class OwnMarks {

    private static final Logger LOG = LoggerFactory.getLogger(OwnMarks.class);

    private final SlurmClient slurm;
    private final SlurmControl control;
    private final NodeProber prober;
    private final String agentUser;
    private final MarkLedger ledger;

    OwnMarks(SlurmClient slurm, SlurmControl control, NodeProber prober, String agentUser, MarkLedger ledger) {
        this.slurm = Objects.requireNonNull(slurm);
        this.control = Objects.requireNonNull(control);
        this.prober = Objects.requireNonNull(prober);
        this.agentUser = Objects.requireNonNull(agentUser);
        this.ledger = Objects.requireNonNull(ledger);
    }

    /** Records, then makes, the mark; the record holds the reason time Slurm stamped on it. */
    NodeDecision mark(Job job, NodeMark mark, NodeMark.Action action, String evidence, String what) {
        String node = mark.node();
        Optional<MarkLedger.Mark> before = ledger.markOf(node);
        MarkLedger.Mark entry = new MarkLedger.Mark(node, job.jobId(), JobAuthority.owner(job), action.word(),
                mark.state().word(), MarkLedger.now(), null);
        try {
            ledger.record(entry);
        } catch (IOException e) {
            return new NodeDecision(node, NodeDecision.REFUSED, evidence, "the agent cannot record the mark in its"
                    + " state file (" + e.getMessage() + "): not marked");
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
                Optional<String> stamped = lookUp(node).node().flatMap(Node::reason).flatMap(NodeReason::time)
                        .map(Object::toString);
                if (stamped.isPresent()) {
                    ledger.record(new MarkLedger.Mark(node, entry.jobId(), entry.owner(), entry.action(),
                            entry.state(), entry.markedAt(), stamped.get()));
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
        Optional<String> notOurs = notMarkedForJob(job, lookup, null);
        if (notOurs.isPresent()) {
            return new NodeDecision(name, NodeDecision.REFUSED, lookup.slurmSays(), notOurs.get());
        }
        Node node = lookup.node().get();
        if (node.state().notResponding()) {
            return new NodeDecision(name, NodeDecision.REFUSED, lookup.slurmSays(),
                    "the node's slurmd is not responding yet");
        }
        Optional<String> silent = prober.unreachable(node);
        if (silent.isPresent()) {
            return new NodeDecision(name, NodeDecision.REFUSED, silent.get() + "; " + lookup.slurmSays(),
                    "the node's slurmd is not reachable yet");
        }
        WriteResult write = control.resume(name);
        if (!write.ok()) {
            return new NodeDecision(name, NodeDecision.FAILED, lookup.slurmSays(), write.message());
        }
        try {
            ledger.forget(name);
        } catch (IOException e) {
            LOG.warn("resumed {} but could not drop its mark from the agent's record: {}", name, e.getMessage());
        }
        return new NodeDecision(name, NodeDecision.RESUMED, lookup.slurmSays(),
                "returned to service (`" + write.command() + "`)");
    }

    /** The site's replace command for a node the agent marked Action:Replace for this job. */
    NodeDecision replace(Job job, String name, SiteReplaceCommand command) {
        NodeLookup lookup = lookUp(name);
        if (lookup.refusal() != null) {
            return lookup.refusal();
        }
        Optional<String> notOurs = notMarkedForJob(job, lookup, NodeMark.Action.REPLACE);
        if (notOurs.isPresent()) {
            return new NodeDecision(name, NodeDecision.REFUSED, lookup.slurmSays(), notOurs.get());
        }
        return new NodeDecision(name, NodeDecision.REPLACING, lookup.slurmSays(), command.start(name));
    }

    /**
     * Why the node is not one the agent marked for this job and still carries that mark; empty when
     * it is. {@code only}: the one action that counts, or null for either.
     */
    private Optional<String> notMarkedForJob(Job job, NodeLookup lookup, NodeMark.Action only) {
        String name = lookup.name();
        Optional<MarkLedger.Mark> mark = ledger.markOf(name);
        if (mark.isEmpty() || !mark.get().isFor(job.jobId(), JobAuthority.owner(job))) {
            return Optional.of("the agent acts here only on nodes it marked for job " + job.jobId() + "; "
                    + (mark.isEmpty() ? "it has no mark of its own on " + name
                    : "its mark on " + name + " was for job " + mark.get().jobId()));
        }
        Optional<NodeReason> reason = lookup.node().get().reason();
        boolean agentsReason = reason.isPresent()
                && (only == null ? reason.get().isAction(NodeMark.Action.REPLACE.word())
                        || reason.get().isAction(NodeMark.Action.REBOOT.word())
                        : reason.get().isAction(only.word()))
                && reason.get().user().map(agentUser::equals).orElse(true);
        if (!agentsReason) {
            return Optional.of("the node no longer carries the agent's mark (reason " + (only == null
                    ? "Action:Replace or Action:Reboot" : only.reason()) + " set by " + agentUser + ")");
        }
        String stamped = mark.get().reasonTime();
        Optional<String> now = reason.get().time().map(Object::toString);
        if (stamped != null && now.isPresent() && !now.get().equals(stamped)) {
            return Optional.of("the node was marked again at " + now.get() + ", after the agent's mark of "
                    + stamped + ": that mark is not the agent's");
        }
        return Optional.empty();
    }

    /** A node as Slurm reports it, with its state in words; or why it cannot be read. */
    record NodeLookup(String name, Optional<Node> node, String slurmSays, NodeDecision refusal) {
    }

    NodeLookup lookUp(String name) {
        Optional<Node> found;
        try {
            found = slurm.node(name);
        } catch (SlurmException e) {
            return new NodeLookup(name, Optional.empty(), null, new NodeDecision(name, NodeDecision.REFUSED, null,
                    "could not read the node from Slurm: " + e.getMessage()));
        }
        if (found.isEmpty()) {
            return new NodeLookup(name, found, null, new NodeDecision(name, NodeDecision.REFUSED, null,
                    "Slurm does not know the node"));
        }
        Node node = found.get();
        String slurmSays = "Slurm state " + node.state().display()
                + node.reason().map(r -> ", reason \"" + r.text() + "\"" + r.user().map(u -> " set by " + u).orElse(""))
                        .orElse("");
        return new NodeLookup(name, found, slurmSays, null);
    }
}
