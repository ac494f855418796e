package org.slurmautoresume.slurm.client;

import org.slurmautoresume.slurm.model.SlurmVersion;

/** Which of scontrol's outputs {@link SlurmClient} reads nodes, jobs and steps from. */
public enum OutputFormat {
    /** JSON when the installed scontrol has it (Slurm 23.02 and later), else text; asked once. */
    AUTO,
    /** {@code scontrol -o} text, which every supported release prints. */
    TEXT,
    /** {@code scontrol --json}; an scontrol without it is answered from its text instead. */
    JSON;

    /** The format a known release reads best; AUTO when the text is not a version. */
    public static OutputFormat forRelease(String versionText) {
        if (versionText == null || versionText.isBlank()) {
            return AUTO;
        }
        try {
            return of(SlurmVersion.parse(versionText));
        } catch (IllegalArgumentException e) {
            return AUTO;
        }
    }

    /** The format {@code release} reads best. */
    public static OutputFormat of(SlurmVersion release) {
        return release.atLeast(SlurmVersion.FIRST_WITH_JSON) ? JSON : TEXT;
    }
}
