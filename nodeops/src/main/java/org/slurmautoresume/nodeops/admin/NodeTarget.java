package org.slurmautoresume.nodeops.admin;

import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;

/**
 * One node an admin command would change, as read just before: its record, the active jobs on
 * it, and why it will be left alone (empty when it will be changed).
 */
public record NodeTarget(Node node, List<Job> jobs, Optional<String> refusal) {

    public NodeTarget {
        jobs = List.copyOf(jobs);
    }

    public boolean willChange() {
        return refusal.isEmpty();
    }
}
