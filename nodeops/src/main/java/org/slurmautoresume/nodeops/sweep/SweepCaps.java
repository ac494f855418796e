package org.slurmautoresume.nodeops.sweep;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slurmautoresume.slurm.model.Node;

/**
 * The safety caps: a sweep changes at most {@code maxNodes} nodes, and at most
 * {@code maxPartitionPercent} of any partition's nodes, so a controller glitch that makes the
 * whole cluster look broken cannot make the sweep take the whole cluster down. Actions are
 * admitted in kind order (capacity-restoring first), then in the controller's node order; donor job cancels
 * change no node and are never held.
 */
final class SweepCaps {

    private SweepCaps() {}

    static SweepPlan apply(List<SweepAction> planned, List<Node> nodes, SweepPolicy policy) {
        List<SweepAction> ordered = new ArrayList<>(planned);
        ordered.sort(Comparator.comparing(SweepAction::kind)); // stable: the controller's node order within a kind
        Map<String, Integer> partitionSize = new HashMap<>();
        for (Node node : nodes) {
            for (String partition : node.partitions()) {
                partitionSize.merge(partition, 1, Integer::sum);
            }
        }
        Map<String, Integer> used = new HashMap<>();
        Set<String> touched = new HashSet<>();
        List<SweepAction> admitted = new ArrayList<>();
        List<SweepPlan.Held> held = new ArrayList<>();
        for (SweepAction action : ordered) {
            if (!action.kind().onNode()) {
                admitted.add(action);
                continue;
            }
            String why = null;
            if (touched.size() >= policy.maxNodes()) {
                why = "cap maxNodes=" + policy.maxNodes() + ": this sweep already changes " + touched.size()
                        + " node(s)";
            } else {
                for (String partition : action.partitions()) {
                    int size = partitionSize.getOrDefault(partition, 0);
                    int cap = policy.partitionCap(size);
                    int already = used.getOrDefault(partition, 0);
                    if (already >= cap) {
                        why = "cap maxPartitionPercent=" + policy.maxPartitionPercent() + ": partition " + partition
                                + " has " + size + " node(s), so at most " + cap + " may change in one sweep, and "
                                + already + " already do";
                        break;
                    }
                }
            }
            if (why != null) {
                held.add(new SweepPlan.Held(action, why));
                continue;
            }
            admitted.add(action);
            touched.add(action.target());
            action.partitions().forEach(p -> used.merge(p, 1, Integer::sum));
        }
        return new SweepPlan(admitted, held, List.of());
    }
}
