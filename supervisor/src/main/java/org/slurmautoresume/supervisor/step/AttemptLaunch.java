package org.slurmautoresume.supervisor.step;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.supervisor.checkpoint.CheckpointLocator;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;
import org.slurmautoresume.supervisor.step.restart.InJobSpares;
import org.slurmautoresume.supervisor.step.restart.RestartActions;
import org.slurmautoresume.supervisor.step.settings.Allocation;
import org.slurmautoresume.supervisor.step.settings.FirstAttemptNodes;

/**
 * What one attempt's srun is started with: the user's argv (with --overlap when the failed step
 * still holds its CPUs), and the supervisor's environment plus the guard variable, the attempt
 * number, the repaired job's node list and master, and the newest complete checkpoint.
 */
public final class AttemptLaunch {

    /** The supervisor's own environment, which each attempt's srun starts from. */
    private final Map<String, String> environment;

    private final Allocation allocation;
    private final Optional<CheckpointLocator> checkpoints;
    private final SupervisorLog log;

    AttemptLaunch(
            Map<String, String> environment,
            Allocation allocation,
            Optional<CheckpointLocator> checkpoints,
            SupervisorLog log) {
        this.environment = Map.copyOf(environment);
        this.allocation = allocation;
        this.checkpoints = checkpoints;
        this.log = log;
    }

    /** srun's own argv, with --overlap after srun when the failed step still holds resources. */
    public static List<String> argv(List<String> srunArgv, boolean overlap) {
        return argv(srunArgv, overlap, Optional.empty());
    }

    /**
     * srun's own argv with, right after srun, --overlap when the failed step still holds
     * resources and --nodelist when the supervisor places the step (in-job spares); the user's
     * words otherwise untouched.
     */
    public static List<String> argv(List<String> srunArgv, boolean overlap, Optional<List<String>> nodes) {
        if ((!overlap && nodes.isEmpty()) || srunArgv.isEmpty()) {
            return srunArgv;
        }
        List<String> argv = new ArrayList<>(srunArgv.size() + 2);
        argv.add(srunArgv.get(0));
        if (overlap) {
            argv.add("--overlap");
        }
        nodes.ifPresent(list -> argv.add("--nodelist=" + String.join(",", list)));
        argv.addAll(srunArgv.subList(1, srunArgv.size()));
        return argv;
    }

    /** The in-job spares plan for this srun, from its argv and the job's allocation. */
    Optional<InJobSpares> inJobSpares(List<String> srunArgv) {
        return InJobSpares.plan(srunArgv, allocation);
    }

    /** The nodes the first attempt is told of, from the job's allocation. */
    Optional<FirstAttemptNodes> firstAttemptNodes(Optional<InJobSpares> spares) {
        if (spares.isPresent()) {
            List<String> step = spares.get().stepNodes();
            return Optional.of(new FirstAttemptNodes(Hostlist.compress(step), step));
        }
        return allocation.jobNodes();
    }

    /** @param fresh the node variables for this attempt (see {@link RestartActions#freshVariables()}) */
    Map<String, String> environment(int attempt, Map<String, String> fresh) {
        Map<String, String> env = new HashMap<>(environment);
        env.remove(StepSupervisor.SLURM_VERSION_HINT); // the plugin's word to this supervisor, not the step's
        env.remove(Allocation.NODE_RECORDS_FD); // the launcher's, likewise
        env.putAll(fresh);
        env.put(StepSupervisor.GUARD, "1");
        env.put(StepSupervisor.ATTEMPT, Integer.toString(attempt));
        newestCheckpoint(attempt).ifPresent(path -> env.put(StepSupervisor.CHECKPOINT, path));
        return env;
    }

    /** Looked up afresh before every attempt: the failed one may have written a newer checkpoint. */
    private Optional<String> newestCheckpoint(int attempt) {
        if (checkpoints.isEmpty()) {
            return Optional.empty();
        }
        try {
            Optional<CheckpointLocator.Checkpoint> newest = checkpoints.get().newest();
            if (newest.isEmpty()) {
                if (attempt > 1) {
                    log.say("no complete checkpoint in " + checkpoints.get().dir() + " (none holds "
                            + checkpoints.get().marker() + "): the step starts from the beginning");
                }
                return Optional.empty();
            }
            log.say("newest complete checkpoint: " + newest.get().path() + " (written "
                    + Duration.between(newest.get().writtenAt(), Instant.now()).toSeconds()
                    + " s ago); " + StepSupervisor.CHECKPOINT + " names it");
            return Optional.of(newest.get().path().toString());
        } catch (UncheckedIOException e) {
            log.say("cannot look for checkpoints: " + e.getMessage());
            return Optional.empty();
        }
    }
}
