package org.slurmautoresume.slurm.env;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.InvalidJobIdException;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.Node;

/**
 * Resolves a job's {@link JobEnvironment} from {@code scontrol show job} and {@code show node},
 * or a step's from what srun told its task and, at most, one {@code show node} of its master.
 */
public final class JobEnvironmentResolver {

    private final SlurmClient slurm;

    public JobEnvironmentResolver(SlurmClient slurm) {
        this.slurm = Objects.requireNonNull(slurm);
    }

    /** The job's environment; text that is not a {@link JobId} is NOT_FOUND, as for {@link SlurmClient#job}. */
    public JobEnvironment resolve(String jobId) {
        try {
            return resolve(JobId.parse(jobId));
        } catch (InvalidJobIdException e) {
            throw new SlurmException(SlurmException.Kind.NOT_FOUND, e.getMessage(), e);
        }
    }

    public JobEnvironment resolve(JobId jobId) {
        Job job = slurm.requireJob(jobId);
        if (job.nodeList().isEmpty()) {
            throw new SlurmException(
                    SlurmException.Kind.NOT_FOUND,
                    "job " + jobId + " is " + job.state() + " and has no nodes"
                            + (job.reason().isEmpty() ? "" : " (reason: " + job.reason() + ")"));
        }
        List<String> hosts = Hostlist.expand(job.nodeList());
        String master = hosts.get(0);
        return new JobEnvironment(job.jobId(), job.nodeList(), hosts, master, address(jobId.toString(), master));
    }

    /**
     * The step's environment: its nodes as srun gave them to the task, no job read. MASTER_ADDR
     * is the one the supervisor already exported for the same master (every task of a step of
     * thousands asks at once; one node read each would be thousands of controller requests per
     * attempt), else the master's NodeAddr from one {@code show node}.
     */
    public JobEnvironment resolveStep(StepNodes step, Map<String, String> environment) {
        String master = step.master();
        String known = environment.get("MASTER_ADDR");
        String address = master.equals(environment.get("MASTER_NODE")) && known != null && !known.isBlank()
                ? known.strip()
                : address(step.jobId(), master);
        return new JobEnvironment(step.jobId(), step.nodeList(), step.hosts(), master, address);
    }

    private String address(String jobId, String master) {
        Node masterNode = slurm.node(master)
                .orElseThrow(() -> new SlurmException(
                        SlurmException.Kind.NOT_FOUND,
                        "job " + jobId + " runs on node " + master + ", which scontrol does not know"));
        return masterNode.address();
    }
}
