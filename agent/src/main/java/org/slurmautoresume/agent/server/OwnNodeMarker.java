package org.slurmautoresume.agent.server;

import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.client.WriteResult;
import org.slurmautoresume.slurm.model.Node;

/**
 * How the agent takes its own node out of service after its own finding (an Xid, a failed GPU
 * check): {@code fail} with {@code Action:Replace} or {@code Action:Reboot} and the evidence,
 * counted in the metrics and told to the liveness port. A node that is already out of service
 * (down, drained, failing, a reboot pending) keeps the reason it has: an administrator's or an
 * earlier mark's.
 * One per agent, shared by its Xid watch and its GPU checks; the Slurm client and control it is
 * given should ride out a slurmctld outage (a fault found while the controller restarts is
 * marked once it answers, not lost).
 */
public final class OwnNodeMarker {

    private static final Logger LOG = LoggerFactory.getLogger(OwnNodeMarker.class);

    private final String node;
    private final SlurmClient slurm;
    private final SlurmControl control;
    private final AgentMetrics metrics;
    private final NodeVerdict verdict;

    public OwnNodeMarker(
            String node, SlurmClient slurm, SlurmControl control, AgentMetrics metrics, NodeVerdict verdict) {
        this.node = Objects.requireNonNull(node);
        this.slurm = Objects.requireNonNull(slurm);
        this.control = Objects.requireNonNull(control);
        this.metrics = Objects.requireNonNull(metrics);
        this.verdict = Objects.requireNonNull(verdict);
    }

    public String node() {
        return node;
    }

    /**
     * Marks the node for {@code action} with {@code detail} in the reason (our own words: nothing a
     * user wrote may reach it) and logs it under {@code what}; returns the outcome for the audit log.
     */
    String mark(NodeMark.Action action, String detail, String what) {
        Optional<Node> current = currentNode();
        // Not "unschedulable": right after a slurmctld restart every node is UNKNOWN until it registers.
        if (current.isPresent() && current.get().state().isTakenOut()) {
            String state = current.get().state().display();
            LOG.warn(
                    "{} on {}: the node needs {}, but it is already {} ({}): left as it is",
                    what,
                    node,
                    action.reason(),
                    state,
                    current.get().reason().map(r -> r.text()).orElse("no reason"));
            return "already " + state + ": not marked";
        }
        NodeMark mark = NodeMark.of(node, NodeMark.State.FAIL, action, detail);
        WriteResult result = control.mark(mark);
        if (!result.ok()) {
            LOG.error("{} on {}: could not mark the node fail ({}): {}", what, node, mark.reason(), result.message());
            return "marking failed: " + result.message();
        }
        verdict.markedUnhealthy();
        metrics.nodeMarked(action);
        LOG.warn("{} on {}: marked the node fail, reason \"{}\"", what, node, mark.reason());
        return "marked fail: " + mark.reason();
    }

    private Optional<Node> currentNode() {
        try {
            return slurm.node(node);
        } catch (RuntimeException e) {
            // Slurm could not be asked: marking is still right, and scontrol update will say if it fails.
            LOG.warn("could not read node {} from Slurm before marking it: {}", node, e.getMessage());
            return Optional.empty();
        }
    }
}
