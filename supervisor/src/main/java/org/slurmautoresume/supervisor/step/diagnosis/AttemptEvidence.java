package org.slurmautoresume.supervisor.step.diagnosis;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.supervisor.policy.SignalNumber;

/**
 * Everything known when an attempt's srun has exited: its status, what it printed last on
 * stderr, a stop signal the supervisor received, the job as Slurm sees it now, the hosts the
 * step ran on, those hosts' current records, and, read only when srun's refusal points at a
 * restarted slurmctld, how long before the attempt ended that slurmctld had started.
 */
public record AttemptEvidence(
        int exitStatus,
        Optional<SignalNumber> stopSignal,
        List<String> stderrTail,
        Optional<Job> jobAfter,
        List<String> stepHosts,
        List<Node> stepNodesAfter,
        Optional<Duration> controllerUp) {

    public AttemptEvidence {
        stderrTail = List.copyOf(stderrTail);
        stepHosts = List.copyOf(stepHosts);
        stepNodesAfter = List.copyOf(stepNodesAfter);
    }

    public AttemptEvidence(
            int exitStatus,
            Optional<SignalNumber> stopSignal,
            List<String> stderrTail,
            Optional<Job> jobAfter,
            List<String> stepHosts,
            List<Node> stepNodesAfter) {
        this(exitStatus, stopSignal, stderrTail, jobAfter, stepHosts, stepNodesAfter, Optional.empty());
    }

    /**
     * What Slurm says once an attempt's srun has exited: after a failure, the job and the records
     * of the hosts the step ran on (the job's nodes when the step was never named); after a
     * success, nothing is asked. A Slurm that does not answer is said and leaves them empty.
     */
    public static AttemptEvidence gather(
            int status,
            Optional<SignalNumber> stopSignal,
            List<String> stderrTail,
            List<String> stepHosts,
            Optional<JobId> jobId,
            SlurmClient slurm,
            Consumer<String> say) {
        Optional<Job> job = Optional.empty();
        List<Node> nodes = List.of();
        List<String> hosts = stepHosts;
        if (status != 0 && jobId.isPresent()) {
            try {
                job = slurm.job(jobId.get());
                if (hosts.isEmpty() && job.isPresent() && !job.get().nodeList().isEmpty()) {
                    hosts = Hostlist.expand(job.get().nodeList());
                }
                if (!hosts.isEmpty()) {
                    nodes = slurm.nodes(Hostlist.compress(hosts));
                }
            } catch (SlurmException e) {
                say.accept("could not read the job's state from Slurm (" + e.getMessage() + ")");
            }
        }
        return new AttemptEvidence(
                status,
                stopSignal,
                stderrTail,
                job,
                hosts,
                nodes,
                status != 0 ? controllerUp(stderrTail, slurm) : Optional.empty());
    }

    /**
     * How long slurmctld had been up, read only when srun's refusal is the one a just-restarted
     * slurmctld gives ({@link NodeRegistration#REFUSAL}); none when Slurm cannot say.
     */
    private static Optional<Duration> controllerUp(List<String> stderrTail, SlurmClient slurm) {
        if (stderrTail.stream().noneMatch(NodeRegistration::isRefusal)) {
            return Optional.empty();
        }
        try {
            return slurm.config()
                    .bootTime()
                    .map(boot -> Duration.between(boot, LocalDateTime.now()))
                    .filter(up -> !up.isNegative());
        } catch (SlurmException e) {
            return Optional.empty();
        }
    }
}
