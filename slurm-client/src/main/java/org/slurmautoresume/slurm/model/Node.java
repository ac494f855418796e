package org.slurmautoresume.slurm.model;

import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One node as slurmctld knows it, read the same from the text and from {@code --json}.
 * {@code raw} keeps every field scontrol printed, including ones this model does not name
 * (newer Slurm versions add fields), under the printing format's own name: for display only.
 *
 * @param activeFeatures {@code ActiveFeatures}, JSON {@code active_features}; empty for none
 */
public record Node(
        String name,
        String address,
        String hostname,
        OptionalInt port,
        NodeState state,
        Optional<NodeReason> reason,
        Optional<LocalDateTime> bootTime,
        Optional<LocalDateTime> slurmdStartTime,
        List<String> partitions,
        Optional<String> gres,
        OptionalInt cpus,
        Optional<String> version,
        List<String> activeFeatures,
        Map<String, String> raw) {

    public Node {
        partitions = List.copyOf(partitions);
        activeFeatures = List.copyOf(activeFeatures);
        raw = RawFields.of(raw);
    }

    /** Drained by the site's LBNL NHC ({@link NodeReason#isNhc}): its health check's verdict on the node. */
    public boolean drainedByNhc() {
        return state.isDrain() && reason.map(NodeReason::isNhc).orElse(false);
    }

    /**
     * Answering the controller from a slurmd that started at or after {@code since}: the node,
     * or the instance that replaced it, registered again since then. Slurm prints whole seconds,
     * so "at" counts.
     */
    public boolean answersFromSlurmdStartedSince(LocalDateTime since) {
        return !state.notResponding()
                && slurmdStartTime.map(started -> !started.isBefore(since)).orElse(false);
    }
}
