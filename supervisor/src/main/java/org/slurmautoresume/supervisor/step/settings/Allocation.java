package org.slurmautoresume.supervisor.step.settings;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.JobId;

/**
 * What the environment says of the job this supervisor runs in, read once at start: the
 * allocation Slurm gave the batch script, and the launcher's hand-over. Nothing here is trusted
 * beyond the user's own job: it places and names the user's own step.
 *
 * @param jobId         SLURM_JOB_ID; empty outside a job, or when it is not a job id
 * @param jobIdRefused  why SLURM_JOB_ID was not taken as a job id, said once at start; empty when it was
 * @param user          USER, for the names of the per-job files
 * @param jobNodes      SLURM_JOB_NODELIST in Slurm's order, when it agrees with SLURM_JOB_NUM_NODES;
 *                      empty outside an allocation or when the two disagree (a hand-made
 *                      environment is no basis for placing the step or naming its master)
 * @param batchHost     SLURMD_NODENAME, where the batch script runs; empty under salloc
 * @param launcherPipe  where the launcher left its {@code scontrol -o show node} answer
 *                      ({@link #NODE_RECORDS_FD}); empty when it left none
 */
public record Allocation(
        Optional<JobId> jobId,
        Optional<String> jobIdRefused,
        String user,
        Optional<FirstAttemptNodes> jobNodes,
        String batchHost,
        Optional<Path> launcherPipe) {

    /**
     * The launcher's word to this supervisor: the descriptor on which it left the answer of the
     * {@code scontrol -o show node} it started for the job's nodes while the JVM started.
     */
    public static final String NODE_RECORDS_FD = "AUTORESUME_NODE_RECORDS_FD";

    /** No job: a supervisor run by hand outside any allocation. */
    public static final Allocation NONE =
            new Allocation(Optional.empty(), Optional.empty(), "user", Optional.empty(), "", Optional.empty());

    public static Allocation fromEnvironment(Map<String, String> env) {
        Optional<JobId> jobId = Optional.empty();
        Optional<String> refused = Optional.empty();
        String raw = env.get("SLURM_JOB_ID");
        if (raw != null && !raw.isBlank()) {
            try {
                jobId = Optional.of(JobId.parse(raw.strip()));
            } catch (IllegalArgumentException e) {
                refused = Optional.of("SLURM_JOB_ID is not a job id (" + e.getMessage() + ")");
            }
        }
        return new Allocation(
                jobId,
                refused,
                env.getOrDefault("USER", System.getProperty("user.name", "user")),
                jobNodes(env),
                env.getOrDefault("SLURMD_NODENAME", ""),
                launcherPipe(env));
    }

    private static Optional<FirstAttemptNodes> jobNodes(Map<String, String> env) {
        String nodeList = env.getOrDefault("SLURM_JOB_NODELIST", env.get("SLURM_NODELIST"));
        String count = env.getOrDefault("SLURM_JOB_NUM_NODES", env.get("SLURM_NNODES"));
        return Hostlist.expandCounted(nodeList, count).map(hosts -> new FirstAttemptNodes(nodeList.strip(), hosts));
    }

    /** The launcher's pipe, when it left one: {@code /proc/self/fd/N} for the descriptor it named. */
    public static Optional<Path> launcherPipe(Map<String, String> env) {
        return launcherPipe(env, NODE_RECORDS_FD);
    }

    /**
     * A pipe the launcher left for the JVM, named by {@code variable} as a descriptor number
     * ({@code /proc/self/fd/N}); empty when the variable holds anything else.
     */
    public static Optional<Path> launcherPipe(Map<String, String> env, String variable) {
        String fd = env.getOrDefault(variable, "");
        return fd.matches("[0-9]{1,4}") ? Optional.of(Path.of("/proc/self/fd", fd)) : Optional.empty();
    }
}
