package org.slurmautoresume.cli;

import java.util.Optional;

/** The job a command is about: given explicitly, or the job this process runs in. */
final class JobIdOption {

    private JobIdOption() {
    }

    static String resolve(String explicit, CliContext context) {
        if (explicit != null) {
            return explicit;
        }
        Optional<String> fromEnv = context.env("SLURM_JOB_ID").or(() -> context.env("SLURM_JOBID"));
        return fromEnv.orElseThrow(() -> new CliException(ExitCode.USAGE,
                "no job given: pass --job ID, or run inside a Slurm job (SLURM_JOB_ID is not set)"));
    }
}
