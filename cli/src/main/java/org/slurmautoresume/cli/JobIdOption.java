package org.slurmautoresume.cli;

import java.util.Optional;
import org.slurmautoresume.slurm.model.InvalidJobIdException;
import org.slurmautoresume.slurm.model.JobId;

/** The job a command is about: given explicitly, or the job this process runs in. */
final class JobIdOption {

    private JobIdOption() {}

    static JobId resolve(String explicit, CliContext context) {
        if (explicit != null) {
            return parse(explicit, "--job");
        }
        Optional<String> fromEnv = context.env("SLURM_JOB_ID")
                .map(id -> parse(id, "SLURM_JOB_ID"))
                .or(() -> context.env("SLURM_JOBID").map(id -> parse(id, "SLURM_JOBID")))
                .map(JobId::toString);
        return JobId.parse(fromEnv.orElseThrow(() -> new CliException(
                ExitCode.USAGE, "no job given: pass --job ID, or run inside a Slurm job (SLURM_JOB_ID is not set)")));
    }

    /**
     * A job id named on the command line or by the environment. NOT_FOUND, as Slurm's own "Invalid
     * job id" was when such text reached scontrol: no job has that id.
     */
    static JobId parse(String text, String source) {
        try {
            return JobId.parse(text);
        } catch (InvalidJobIdException e) {
            throw new CliException(ExitCode.NOT_FOUND, source + ": " + e.getMessage());
        }
    }
}
