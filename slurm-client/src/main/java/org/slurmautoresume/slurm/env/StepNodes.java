package org.slurmautoresume.slurm.env;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.slurm.hostlist.Hostlist;

/**
 * The nodes of the job step this process is a task of, as srun told the task: srun sets
 * SLURM_STEP_NODELIST and SLURM_STEP_NUM_NODES in every task of every step, afresh for each
 * srun, so on every attempt of a supervised step they name exactly the nodes that attempt runs
 * on. A batch script or salloc shell has neither: it is no task of a step.
 *
 * <p>The step's nodes, not the job's, are what a training script sizes itself by: in a job with
 * in-job spares the step runs on fewer nodes than the job holds, and a process group waiting for
 * a rank on the idle spare never forms.
 *
 * @param jobId    the job the step belongs to (SLURM_JOB_ID)
 * @param nodeList Slurm's compressed form, as srun wrote it
 * @param hosts    the nodes in Slurm's order; the first is the step's master
 */
public record StepNodes(String jobId, String nodeList, List<String> hosts) {

    public StepNodes {
        hosts = List.copyOf(hosts);
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("a step has at least one node");
        }
    }

    /**
     * The step this process is a task of, of job {@code jobId}; empty outside a step of that
     * job, or when srun's variables disagree with each other (a hand-edited environment is no
     * basis for telling a training script where its master is: the job's view is used then).
     */
    public static Optional<StepNodes> ofTask(Map<String, String> environment, String jobId) {
        String job = environment.getOrDefault("SLURM_JOB_ID", environment.get("SLURM_JOBID"));
        String stepId = environment.getOrDefault("SLURM_STEP_ID", environment.get("SLURM_STEPID"));
        String nodeList = environment.get("SLURM_STEP_NODELIST");
        if (job == null || !job.strip().equals(jobId) || stepId == null) {
            return Optional.empty();
        }
        return Hostlist.expandCounted(nodeList, environment.get("SLURM_STEP_NUM_NODES"))
                .map(hosts -> new StepNodes(jobId, nodeList.strip(), hosts));
    }

    public String master() {
        return hosts.get(0);
    }
}
