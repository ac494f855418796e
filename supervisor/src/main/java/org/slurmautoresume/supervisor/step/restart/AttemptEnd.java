package org.slurmautoresume.supervisor.step.restart;

import java.util.Optional;
import org.slurmautoresume.supervisor.step.diagnosis.Classification;

/**
 * How an attempt ended, as the restart actions need it.
 *
 * @param status     srun's exit status
 * @param stepId     the attempt's Slurm step id, when the step watch found it
 * @param jobSize    the job's node count when the supervisor started (0: unknown or no recovery)
 * @param endedNanos when srun ended ({@link System#nanoTime()}), for the repair latency
 */
public record AttemptEnd(int status, Classification result, Optional<String> stepId, int jobSize, long endedNanos) {}
