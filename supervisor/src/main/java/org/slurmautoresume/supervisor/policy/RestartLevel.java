package org.slurmautoresume.supervisor.policy;

import java.util.Optional;

/** What a recovery costs, cheapest first. */
public enum RestartLevel {
    /** The same step, the same nodes. */
    RERUN_IN_PLACE(true),
    /** The faulty nodes swapped for healthy ones, then the same step. */
    REPLACE_NODES_AND_RERUN(true),
    /** The whole job back to the queue; everything starts again. */
    REQUEUE_JOB(false),
    /** No more recovery. */
    GIVE_UP(false);

    private final boolean stepRestart;

    RestartLevel(boolean stepRestart) {
        this.stepRestart = stepRestart;
    }

    /** A process-level restart in seed 001's words: these count against {@code jobMaxRetryCount}. */
    public boolean isStepRestart() {
        return stepRestart;
    }

    /** The level of this name (as a timeline records it); empty for none or an unknown name. */
    public static Optional<RestartLevel> named(String name) {
        for (RestartLevel level : values()) {
            if (level.name().equals(name)) {
                return Optional.of(level);
            }
        }
        return Optional.empty();
    }
}
