package org.slurmautoresume.supervisor.recovery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Node;

/**
 * Where hot spares come from: the nodes of a partition, the nodes with a feature, or a hostlist
 * (any combination; a node qualifies if it matches any). Picking is deterministic: in the
 * controller's order, idle and schedulable nodes only, never a node the job already has or one
 * that just failed.
 */
public record SparePool(Optional<String> partition, Optional<String> feature, Optional<String> hostlist) {

    public SparePool {
        Objects.requireNonNull(partition);
        Objects.requireNonNull(feature);
        Objects.requireNonNull(hostlist);
        if (partition.isEmpty() && feature.isEmpty() && hostlist.isEmpty()) {
            throw new IllegalArgumentException("a spare pool needs a partition, a feature or a hostlist");
        }
        hostlist.ifPresent(Hostlist::count); // a malformed expression is an error now, not at the first fault
    }

    /** Up to {@code count} spares, fewer when the pool has fewer free nodes. */
    public List<String> pick(List<Node> cluster, int count, Collection<String> exclude) {
        Set<String> listed = hostlist.map(h -> Set.copyOf(Hostlist.expand(h))).orElse(Set.of());
        List<String> picked = new ArrayList<>();
        for (Node node : cluster) {
            if (picked.size() == count) {
                break;
            }
            if (exclude.contains(node.name()) || !isFree(node) || !inPool(node, listed)) {
                continue;
            }
            picked.add(node.name());
        }
        return picked;
    }

    private boolean inPool(Node node, Set<String> listed) {
        return partition.map(node.partitions()::contains).orElse(false)
                || feature.map(node.activeFeatures()::contains).orElse(false)
                || listed.contains(node.name());
    }

    /** Idle with nothing that keeps the scheduler away: a spare must be wholly free. */
    static boolean isFree(Node node) {
        return node.state().base().equals("IDLE")
                && node.state().isSchedulable()
                && !node.state().has("COMPLETING");
    }
}
