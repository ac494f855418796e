package org.slurmautoresume.slurm.exec;

/**
 * Runs external commands. The one boundary between the toolkit and the programs it drives
 * (scontrol, sinfo, squeue, salloc, ...): tests mock this interface, nothing below it.
 */
public interface CommandRunner {

    /**
     * Runs the command to completion or timeout. A non-zero exit is not an exception: it is
     * reported in the result. Throws {@link CommandException} only when the program could not
     * be started at all (missing, not executable).
     */
    CommandResult run(CommandRequest request);

    /**
     * As {@link #run(CommandRequest)}, ended early (and reported as timed out) once
     * {@code cancel} fires. A runner that cannot stop its command runs it to the end.
     */
    default CommandResult run(CommandRequest request, Cancel cancel) {
        return run(request);
    }

    /** Runs the command and returns its result, or throws {@link CommandException} unless it succeeded. */
    default CommandResult runChecked(CommandRequest request) {
        CommandResult result = run(request);
        if (!result.succeeded()) {
            throw CommandException.failed(result);
        }
        return result;
    }
}
