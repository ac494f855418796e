package org.slurmautoresume.bridge.slurm;

/** Which of scontrol's outputs {@link SlurmClient} reads nodes, jobs and steps from. */
public enum OutputFormat {
    /** JSON when the installed scontrol has it (Slurm 23.02 and later), else text; asked once. */
    AUTO,
    /** {@code scontrol -o} text, which every supported release prints. */
    TEXT,
    /** {@code scontrol --json}; an scontrol without it is answered from its text instead. */
    JSON
}
