package org.slurmautoresume.nodeops.lemon;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The fault marks of the nodes a decision needs, as read from Slurm's accounting, or why they
 * could not be read ({@code unavailable}: no slurmdbd, sacctmgr failed). A node absent from
 * {@code marks} has none.
 */
public record FaultHistory(Map<String, List<FaultMark>> marks, Optional<String> unavailable) {

    public FaultHistory {
        marks = Map.copyOf(marks);
    }

    /** No node has a mark (also: nothing needed reading). */
    public static FaultHistory none() {
        return new FaultHistory(Map.of(), Optional.empty());
    }

    public static FaultHistory of(Map<String, List<FaultMark>> marks) {
        return new FaultHistory(marks, Optional.empty());
    }

    public static FaultHistory unavailable(String why) {
        return new FaultHistory(Map.of(), Optional.of(why));
    }

    public List<FaultMark> of(String node) {
        return marks.getOrDefault(node, List.of());
    }
}
