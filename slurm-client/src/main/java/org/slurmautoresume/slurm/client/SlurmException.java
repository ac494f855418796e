package org.slurmautoresume.slurm.client;

/** A Slurm query or action that did not succeed, with a message fit for an operator. */
public class SlurmException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What kind of failure, so front ends can choose an exit status. */
    public enum Kind {
        /** The job, step or node does not exist. */
        NOT_FOUND,
        /** Slurm's commands are not installed or the controller cannot be reached. */
        UNAVAILABLE,
        /** The command ran and failed. */
        COMMAND_FAILED,
        /** The command did not finish in time. */
        TIMEOUT,
        /** Slurm answered something this toolkit cannot read. */
        BAD_OUTPUT
    }

    private final Kind kind;

    public SlurmException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public SlurmException(Kind kind, String message) {
        this(kind, message, null);
    }

    public Kind kind() {
        return kind;
    }
}
