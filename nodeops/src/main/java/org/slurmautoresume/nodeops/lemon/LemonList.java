package org.slurmautoresume.nodeops.lemon;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;

/**
 * Which nodes an administrator should look at as lemons: a pure function of the nodes, their
 * fault marks and the rule. A node the toolkit holds is listed with the marks that made it one
 * (judged at the time of the hold, however long ago); a node not held yet (still waiting for its
 * replacement, say) is listed once its marks reach the rule now.
 */
public final class LemonList {

    /** One lemon: the node as Slurm shows it, whether the toolkit holds it, and its verdict. */
    public record Entry(Node node, boolean held, Optional<LocalDateTime> heldSince, LemonVerdict verdict) {}

    private LemonList() {}

    /** Where the history must start so that every node in {@code nodes} can be judged. */
    public static LocalDateTime historySince(List<Node> nodes, LemonRule rule, LocalDateTime now) {
        LocalDateTime since = rule.since(now);
        for (Node node : nodes) {
            Optional<LocalDateTime> held = heldSince(node);
            if (held.isPresent() && rule.since(held.get()).isBefore(since)) {
                since = rule.since(held.get());
            }
        }
        return since;
    }

    public static List<Entry> select(
            List<Node> nodes, Map<String, List<FaultMark>> marks, LemonRule rule, LocalDateTime now) {
        List<Entry> entries = new ArrayList<>();
        for (Node node : nodes) {
            boolean held =
                    node.reason().map(NodeReason::text).map(LemonHold::isHold).orElse(false);
            Optional<LocalDateTime> since = heldSince(node);
            LemonVerdict verdict = rule.judge(marks.getOrDefault(node.name(), List.of()), since.orElse(now));
            if (held || verdict.lemon()) {
                entries.add(new Entry(node, held, since, verdict));
            }
        }
        return entries;
    }

    private static Optional<LocalDateTime> heldSince(Node node) {
        return node.reason().filter(r -> LemonHold.isHold(r.text())).flatMap(NodeReason::time);
    }
}
