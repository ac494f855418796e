package org.slurmautoresume.nodeops.lemon;

import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.hostlist.Hostlist;

/**
 * The fault marks of the nodes a decision needs, as read from Slurm's accounting, or why they
 * could not be read ({@code unavailable}: no slurmdbd, sacctmgr failed). A node absent from
 * {@code marks} has none.
 */
public record FaultHistory(Map<String, List<FaultMark>> marks, Optional<String> unavailable) {

    private static final Logger LOG = LoggerFactory.getLogger(FaultHistory.class);

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

    /**
     * The fault marks of {@code names} within {@code rule}'s window before {@code now}, from Slurm's
     * accounting ({@code sacctmgr show event}); what went wrong when it cannot say. What the sweep
     * and the agent both judge a node by.
     */
    public static FaultHistory read(SlurmClient slurm, List<String> names, LemonRule rule, LocalDateTime now) {
        if (names.isEmpty()) {
            return none();
        }
        try {
            return of(FaultMarks.byNode(slurm.nodeEvents(Hostlist.compress(names), rule.since(now))));
        } catch (SlurmException e) {
            LOG.warn("the lemon rule cannot be applied: {}", e.getMessage());
            return unavailable(e.getMessage());
        }
    }

    public List<FaultMark> of(String node) {
        return marks.getOrDefault(node, List.of());
    }
}
