package org.slurmautoresume.nodeops.admin;

import java.time.LocalDateTime;
import java.util.Optional;
import org.slurmautoresume.slurm.model.Node;

/** A node in replacement or reboot: since when (the reason's time), why, and its phase. */
public record NodeStatus(Node node, NodePhase phase, Optional<LocalDateTime> since, String reason) {

    public static Optional<NodeStatus> of(Node node) {
        return NodePhase.of(node)
                .map(phase -> new NodeStatus(
                        node,
                        phase,
                        node.reason().flatMap(r -> r.time()),
                        node.reason().map(r -> r.text()).orElse("")));
    }
}
