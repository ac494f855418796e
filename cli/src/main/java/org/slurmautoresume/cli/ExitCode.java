package org.slurmautoresume.cli;

/** Every exit status the autoresume command uses, in one place. */
public enum ExitCode {
    OK(0),
    /** Generic failure that has no more specific code. */
    FAILED(1),
    /** Bad command line: unknown option, missing argument, bad value. */
    USAGE(2),
    /** The job, step or node asked for does not exist. */
    NOT_FOUND(3),
    /** A Slurm command ran and failed. */
    SLURM_FAILED(4),
    /** Slurm is not installed here, or its controller cannot be reached. */
    SLURM_UNAVAILABLE(5),
    /** A Slurm command or a wait did not finish in time. */
    TIMEOUT(6),
    /** A configuration file is wrong (lifecycle validate found errors, apply cannot use it). */
    CONFIG_INVALID(7),
    /** A bug: an unexpected exception (sysexits' EX_SOFTWARE). */
    INTERNAL(70);

    private final int code;

    ExitCode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
