package org.slurmautoresume.cli;

import java.util.List;
import org.slurmautoresume.slurm.model.Node;

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

    static NodeView of(Node node) {
        return new NodeView(
                node.name(),
                node.address(),
                node.hostname(),
                node.port().isPresent() ? node.port().getAsInt() : null,
                node.state().display(),
                node.state().base(),
                List.copyOf(node.state().flags()),
                node.state().notResponding(),
                node.reason().map(r -> r.text()).orElse(null),
                node.reason().flatMap(r -> r.user()).orElse(null),
                node.reason().flatMap(r -> r.time()).map(Object::toString).orElse(null),
                node.bootTime().map(Object::toString).orElse(null),
                node.slurmdStartTime().map(Object::toString).orElse(null),
                node.partitions(),
                node.gres().orElse(null));
    }
}
