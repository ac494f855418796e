package org.slurmautoresume.slurm.client;

import java.util.Locale;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.RetryPolicy;

/** What a failed scontrol answer means: not found (of which kind), or a failure of which kind. */
final class ScontrolAnswers {

    private ScontrolAnswers() {}

    static SlurmException failure(CommandResult result, String purpose) {
        String message =
                "could not " + purpose + ": " + CommandException.failed(result).getMessage();
        if (result.timedOut()) {
            return new SlurmException(SlurmException.Kind.TIMEOUT, message);
        }
        if (RetryPolicy.DEFAULT.isTransient(result)) {
            return new SlurmException(SlurmException.Kind.UNAVAILABLE, message);
        }
        return new SlurmException(SlurmException.Kind.COMMAND_FAILED, message);
    }

    static boolean mentionsInvalidJob(CommandResult result) {
        String text = result.stderr().toLowerCase(Locale.ROOT);
        return text.contains("invalid job id") || text.contains("job not found");
    }

    /**
     * A job with no step at all (an salloc allocation without batch or extern step): 24.11 prints
     * {@code Job step 27. not found} on stdout and exits 1, where the JSON lists none.
     */
    static boolean mentionsNoStepOf(CommandResult result, String jobId) {
        return result.stdout().strip().equalsIgnoreCase("Job step " + jobId + ". not found");
    }

    static boolean mentionsNotFound(CommandResult result) {
        String text = (result.stderr() + result.stdout()).toLowerCase(Locale.ROOT);
        return text.contains("not found") || text.contains("invalid node name");
    }
}
