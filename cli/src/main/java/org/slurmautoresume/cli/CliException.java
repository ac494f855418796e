package org.slurmautoresume.cli;

/** The one exception commands throw to end with a message and a chosen exit status. */
public class CliException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ExitCode exitCode;

    public CliException(ExitCode exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public CliException(ExitCode exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public ExitCode exitCode() {
        return exitCode;
    }
}
