package org.slurmautoresume.slurm.probe;

import java.util.Optional;
import org.slurmautoresume.slurm.model.Node;

/** The agent's own look at a node, beyond what slurmctld reports. */
public interface NodeProber {

    /** Empty when the node answered; else the evidence that it did not, in one line. */
    Optional<String> unreachable(Node node);
}
