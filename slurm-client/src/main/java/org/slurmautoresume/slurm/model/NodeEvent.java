package org.slurmautoresume.slurm.model;

import java.time.LocalDateTime;
import java.util.Objects;
import java.util.Optional;

/**
 * One node state change as Slurm's accounting keeps it ({@code sacctmgr show event}): the node
 * went into {@code state} with {@code reason} at {@code start}, set by {@code user}, and stayed
 * so until {@code end} (empty while it still is). slurmdbd keeps these site-wide and across
 * reimaging of the node, which a node's own files do not survive.
 */
public record NodeEvent(
        String node, LocalDateTime start, Optional<LocalDateTime> end, String state, String user, String reason) {

    public NodeEvent {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(end, "end");
        state = state == null ? "" : state;
        user = user == null ? "" : user;
        reason = reason == null ? "" : reason;
    }

    /** The reason read as a node's reason is, for {@link NodeReason#isAction} and its kin. */
    public Optional<NodeReason> nodeReason() {
        return NodeReason.parse(reason);
    }
}
