package org.slurmautoresume.slurm.env;

import java.util.List;
import java.util.Objects;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.InvalidJobIdException;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;

/** Resolves a job's {@link JobEnvironment} from {@code scontrol show job} and {@code show node}. */
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
            throw new SlurmException(SlurmException.Kind.NOT_FOUND, "job " + jobId + " is " + job.state()
                    + " and has no nodes" + (job.reason().isEmpty() ? "" : " (reason: " + job.reason() + ")"));
        }
        List<String> hosts = Hostlist.expand(job.nodeList());
        String master = hosts.get(0);
        Node masterNode = slurm.node(master).orElseThrow(() -> new SlurmException(SlurmException.Kind.NOT_FOUND,
                "job " + jobId + " runs on node " + master + ", which scontrol does not know"));
        return new JobEnvironment(job.jobId(), job.nodeList(), hosts, master, masterNode.address());
    }
}
