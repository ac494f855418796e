package org.slurmautoresume.slurm.exec;

/** A command that could not be started, timed out, or exited non-zero; the message names it. */
public class CommandException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient CommandResult result;
    private final boolean notFound;

    private CommandException(String message, CommandResult result, boolean notFound, Throwable cause) {
        super(message, cause);
        this.result = result;
        this.notFound = notFound;
    }

    public static CommandException failed(CommandResult result) {
        String command = result.request().display();
        String why = result.timedOut()
                ? "timed out after " + result.request().timeout().toSeconds() + " s"
                : "exited with status " + result.exitCode();
        String tail = result.diagnosticTail();
        String message = "`" + command + "` " + why + (tail.isEmpty() ? "" : ": " + tail);
        return new CommandException(message, result, false, null);
    }

    public static CommandException cannotStart(CommandRequest request, Throwable cause) {
        String program = request.argv().get(0);
        String message = "cannot run `" + request.display() + "`: " + program
                + " was not found or is not executable (is it installed and on PATH?)";
        return new CommandException(message, null, true, cause);
    }

    /** The result, or null when the program never started. */
    public CommandResult result() {
        return result;
    }

    /** True when the program itself could not be started (missing binary). */
    public boolean programNotFound() {
        return notFound;
    }
}
