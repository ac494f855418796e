package org.slurmautoresume.cli;

import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;

/** The stable JSON shape of a node in {@code --json} output. */
record NodeView(
        String name,
        String address,
        String hostname,
        Integer port,
        String state,
        String baseState,
        List<String> stateFlags,
        boolean notResponding,
        String reason,
        String reasonUser,
        String reasonTime,
        String bootTime,
        String slurmdStartTime,
        List<String> partitions,
        String gres) {

    /**
     * Written without lambdas: a lambda the class-data archive lacks is spun at the first call,
     * which `nodes --json` paid for at every start.
     */
    static NodeView of(Node node) {
        NodeReason reason = node.reason().orElse(null);
        return new NodeView(
                node.name(),
                node.address(),
                node.hostname(),
                node.port().isPresent() ? node.port().getAsInt() : null,
                node.state().display(),
                node.state().base(),
                List.copyOf(node.state().flags()),
                node.state().notResponding(),
                reason == null ? null : reason.text(),
                reason == null ? null : reason.user().orElse(null),
                reason == null ? null : text(reason.time()),
                text(node.bootTime()),
                text(node.slurmdStartTime()),
                node.partitions(),
                node.gres().orElse(null));
    }

    private static String text(Optional<?> value) {
        return value.isPresent() ? value.get().toString() : null;
    }
}
