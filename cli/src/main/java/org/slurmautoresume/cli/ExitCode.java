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
    /**
     * {@code autoresume health}: at least one check FAILED (skipped checks never cause this) and
     * a reboot would not be enough: the node needs replacing, or a person.
     */
    UNHEALTHY(7),
    /**
     * {@code autoresume health}: checks FAILED, and every failure is reset-class: a reboot should
     * fix the node. The sweep's {@code healthCommand} reads this exit as "reboot".
     */
    UNHEALTHY_REBOOT(8),
    /**
     * {@code autoresume health}: every failure is a filesystem short of space or inodes. The node
     * is sound: it needs space freed, not a reboot or a replacement ({@code --mark} drains it and
     * lifts that drain itself once space is back).
     */
    UNHEALTHY_FREE_SPACE(9),
    /** The sweep changed something (or, with --dry-run, would). */
    SWEEP_ACTED(10),
    /** The sweep held actions back because of its safety caps: look at the report. */
    SWEEP_HELD_BACK(11),
    /** Another sweep holds the lock; this one did nothing. */
    SWEEP_LOCK_BUSY(12),
    /** At least one of the sweep's actions failed. */
    SWEEP_ACTION_FAILED(13),
    /** The caller lacks the privilege Slurm requires (sysexits' EX_NOPERM). */
    PERMISSION_DENIED(77),
    /** A configuration file is wrong: every problem was printed (sysexits' EX_CONFIG). */
    CONFIG_INVALID(78),
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
