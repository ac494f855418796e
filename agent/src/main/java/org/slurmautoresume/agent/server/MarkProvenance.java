package org.slurmautoresume.agent.server;

import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.nodeops.admin.NodePhase;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;

/**
 * Whether a node's current state is the agent's own doing for a job: the {@link MarkLedger}
 * says the agent marked it for that job (id and owner), and Slurm still shows that very mark:
 * the node out of service, its reason the agent's action word set by the agent's user, stamped
 * at the time Slurm gave the agent's write. Anything else (an administrator's change after the
 * mark, a resume, NHC's drain, Slurm's own reason) means the state is someone else's decision,
 * and the job's claim on the node ends with it: the ledger's entry is dropped, so no later
 * request of that job can act on the strength of it.
 *
 * <p>Slurm cannot tell the agent's {@code Action:Replace} from an administrator's typed by hand
 * (both are root's); the stamp is what can. A ledger entry without a stamp (the agent could not
 * read its mark back) never stands: an administrator returns such a node.
 */
final class MarkProvenance {

    private static final Logger LOG = LoggerFactory.getLogger(MarkProvenance.class);

    private final MarkLedger ledger;
    private final String agentUser;

    MarkProvenance(MarkLedger ledger, String agentUser) {
        this.ledger = Objects.requireNonNull(ledger);
        this.agentUser = Objects.requireNonNull(agentUser);
    }

    /** The agent's mark on {@code node} for {@code job}, where it still stands; empty otherwise. */
    Optional<MarkLedger.Mark> standing(Job job, Node node) {
        return whyNotStanding(job, node, null).isEmpty() ? ledger.markOf(node.name()) : Optional.empty();
    }

    /**
     * Why the node's state is not the agent's own standing mark for this job; empty when it is.
     * {@code only}: the one action that counts, or null for either. A mark Slurm shows replaced
     * is forgotten here.
     */
    Optional<String> whyNotStanding(Job job, Node node, NodeMark.Action only) {
        String name = node.name();
        Optional<MarkLedger.Mark> entry = ledger.markOf(name);
        if (entry.isEmpty() || !entry.get().isFor(job.jobId(), JobAuthority.owner(job))) {
            return Optional.of("the agent acts here only on nodes it marked for job " + job.jobId() + "; "
                    + (entry.isEmpty()
                            ? "it has no mark of its own on " + name
                            : "its mark on " + name + " was for job "
                                    + entry.get().jobId()));
        }
        MarkLedger.Mark mark = entry.get();
        if (mark.reasonTime() == null) {
            return Optional.of("the agent could not read back the time Slurm stamped on its mark of " + name
                    + ", so it cannot tell its mark from a later one: an administrator returns the node");
        }
        Optional<NodeReason> reason = node.reason();
        Optional<String> changed = changedSinceMarked(mark, node, reason);
        if (changed.isPresent()) {
            forget(name, changed.get());
            return changed;
        }
        if (only != null && !reason.get().isAction(only.word())) {
            return Optional.of("the node carries the agent's " + reason.get().text() + ", not " + only.reason());
        }
        return Optional.empty();
    }

    /** What Slurm shows that the agent did not write, where the mark no longer stands. */
    private Optional<String> changedSinceMarked(MarkLedger.Mark mark, Node node, Optional<NodeReason> reason) {
        if (!node.state().isTakenOut() || reason.isEmpty()) {
            return Optional.of("the node was returned to service (Slurm shows "
                    + node.state().display()
                    + (reason.isEmpty() ? " with no reason" : "") + ") after the agent's mark of "
                    + mark.reasonTime() + ": that mark is gone");
        }
        NodeReason now = reason.get();
        boolean agentsUser = now.user().map(agentUser::equals).orElse(true);
        if (!NodePhase.hasActionReason(node) || !agentsUser) {
            return Optional.of("the node carries reason \"" + now.text() + "\""
                    + now.user().map(u -> " set by " + u).orElse("")
                    + ", not the agent's mark: someone else's decision since the agent's mark of "
                    + mark.reasonTime());
        }
        Optional<String> stamped = now.time().map(Object::toString);
        if (stamped.isEmpty() || !stamped.get().equals(mark.reasonTime())) {
            return Optional.of("the node was marked again at " + stamped.orElse("an unknown time")
                    + ", after the agent's mark of " + mark.reasonTime() + ": that mark is not the agent's");
        }
        return Optional.empty();
    }

    private void forget(String node, String why) {
        try {
            ledger.forget(node);
            LOG.info("the agent's mark of {} no longer stands and is forgotten: {}", node, why);
        } catch (IOException e) {
            LOG.warn(
                    "the agent's mark of {} no longer stands ({}), but its record could not be updated: {}",
                    node,
                    why,
                    e.getMessage());
        }
    }
}
