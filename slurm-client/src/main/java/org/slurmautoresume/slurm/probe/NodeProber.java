package org.slurmautoresume.slurm.probe;

import java.util.Optional;
import org.slurmautoresume.slurm.model.Node;

/** The agent's own look at a node, beyond what slurmctld reports. */
public interface NodeProber {

    /** Empty when the node answered; else the evidence that it did not, in one line. */
    Optional<String> unreachable(Node node);

    /**
     * Whether the node's own answer to the last probe said it is unhealthy (its agent just marked
     * it): a hint to read Slurm's record now, never evidence by itself. False for probes that get
     * no such answer.
     */
    default boolean reportsUnhealthy(Node node) {
        return false;
    }
}
