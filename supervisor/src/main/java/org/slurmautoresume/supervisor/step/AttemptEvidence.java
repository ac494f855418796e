package org.slurmautoresume.supervisor.step;

import org.slurmautoresume.supervisor.policy.SignalNumber;

import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;

/**
 * Everything known when an attempt's srun has exited: its status, what it printed last on
 * stderr, a stop signal the supervisor received, the job as Slurm sees it now, the hosts the
 * step ran on, and those hosts' current records.
 */
public record AttemptEvidence(int exitStatus, Optional<SignalNumber> stopSignal, List<String> stderrTail,
                              Optional<Job> jobAfter, List<String> stepHosts, List<Node> stepNodesAfter) {

    public AttemptEvidence {
        stderrTail = List.copyOf(stderrTail);
        stepHosts = List.copyOf(stepHosts);
        stepNodesAfter = List.copyOf(stepNodesAfter);
    }
}
