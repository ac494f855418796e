package org.slurmautoresume.supervisor.policy;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@code dump} asks for a last-words checkpoint: the signal sent to the step (srun passes
 * it to every task) and how long to wait for the step to finish by itself before it is stopped.
 * SIGUSR1 by default: the signal Slurm's own {@code --signal} and PyTorch Lightning's Slurm
 * support already use for "save now, you are about to be stopped".
 */
public record DumpSettings(SignalNumber signal, Duration gracePeriod) {

    public static final DumpSettings DEFAULT = new DumpSettings(SignalNumber.USR1, Duration.ofSeconds(60));

    public DumpSettings {
        Objects.requireNonNull(signal, "signal");
        if (gracePeriod.isNegative()) {
            throw new IllegalArgumentException("gracePeriod must not be negative: " + gracePeriod);
        }
    }
}
