package org.slurmautoresume.slurm.model;

import java.util.Locale;

/** Slurm's job states as scontrol prints them in {@code JobState=}. */
public enum JobState {
    PENDING,
    RUNNING,
    SUSPENDED,
    COMPLETING,
    CONFIGURING,
    RESIZING,
    REQUEUED,
    REQUEUE_HOLD,
    REQUEUE_FED,
    SIGNALING,
    STAGE_OUT,
    STOPPED,
    SPECIAL_EXIT,
    RESV_DEL_HOLD,
    COMPLETED,
    CANCELLED,
    FAILED,
    TIMEOUT,
    NODE_FAIL,
    PREEMPTED,
    BOOT_FAIL,
    DEADLINE,
    OUT_OF_MEMORY,
    REVOKED,
    UNKNOWN;

    public static JobState parse(String text) {
        String name = text.strip().toUpperCase(Locale.ROOT);
        for (JobState state : values()) {
            if (state.name().equals(name)) {
                return state;
            }
        }
        return UNKNOWN;
    }

    /** The job has ended and will not run again without a requeue. */
    public boolean isFinished() {
        return switch (this) {
            case COMPLETED,
                    CANCELLED,
                    FAILED,
                    TIMEOUT,
                    NODE_FAIL,
                    PREEMPTED,
                    BOOT_FAIL,
                    DEADLINE,
                    OUT_OF_MEMORY,
                    REVOKED,
                    SPECIAL_EXIT -> true;
            default -> false;
        };
    }

    /** The job holds (or is about to hold) its allocation. */
    public boolean isActive() {
        return switch (this) {
            case RUNNING, SUSPENDED, COMPLETING, CONFIGURING, RESIZING, SIGNALING, STAGE_OUT, STOPPED -> true;
            default -> false;
        };
    }
}
