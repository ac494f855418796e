package org.slurmautoresume.supervisor.step;

import org.slurmautoresume.supervisor.policy.SignalNumber;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;

/**
 * Everything known when an attempt's srun has exited: its status, what it printed last on
 * stderr, a stop signal the supervisor received, the job as Slurm sees it now, the hosts the
 * step ran on, those hosts' current records, and, read only when srun's refusal points at a
 * restarted slurmctld, how long before the attempt ended that slurmctld had started.
 */
public record AttemptEvidence(int exitStatus, Optional<SignalNumber> stopSignal, List<String> stderrTail,
                              Optional<Job> jobAfter, List<String> stepHosts, List<Node> stepNodesAfter,
                              Optional<Duration> controllerUp) {

    public AttemptEvidence {
        stderrTail = List.copyOf(stderrTail);
        stepHosts = List.copyOf(stepHosts);
        stepNodesAfter = List.copyOf(stepNodesAfter);
    }

    public AttemptEvidence(int exitStatus, Optional<SignalNumber> stopSignal, List<String> stderrTail,
                           Optional<Job> jobAfter, List<String> stepHosts, List<Node> stepNodesAfter) {
        this(exitStatus, stopSignal, stderrTail, jobAfter, stepHosts, stepNodesAfter, Optional.empty());
    }
}
