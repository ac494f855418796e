package org.slurmautoresume.nodeops.sweep;

import java.util.List;

/**
 * One change the sweep plans: on a node ({@code target} a node name) or on a donor job
 * ({@code target} a job id). {@code why} says what was seen; {@code reason} is the node reason
 * the change sets (empty when none).
 */
public record SweepAction(Kind kind, String target, List<String> partitions, String reason, String why) {

    /** In the order actions are applied and caps are filled: restoring capacity first. */
    public enum Kind {
        /** Health check, then {@code state=resume}; unhealthy: kept, with the check's verdict as reason. */
        RESUME_IF_HEALTHY("resume-if-healthy"),
        /**
         * A node back under its hostname that the toolkit marked faulty too often: kept out with
         * the lemon reason instead of resumed, for an administrator to look at.
         */
        HOLD_LEMON("hold-lemon"),
        /** {@code scancel} of an expansion donor job whose recovery is over. */
        CANCEL_ORPHAN_DONOR("cancel-orphan-donor"),
        /** {@code state=fail reason=Action:Replace} for a node down and silent too long. */
        MARK_REPLACE("mark-replace"),
        /** {@code state=drain} for a node stuck COMPLETING where other jobs still run. */
        DRAIN_STUCK_COMPLETING("drain-stuck-completing"),
        /** {@code state=down} for a node stuck COMPLETING where nothing else runs. */
        DOWN_STUCK_COMPLETING("down-stuck-completing"),
        /** {@code state=down} for a node FAIL/Action:Replace too long, with no job left on it. */
        ESCALATE_TO_DOWN("escalate-to-down");

        private final String word;

        Kind(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }

        public boolean onNode() {
            return this != CANCEL_ORPHAN_DONOR;
        }
    }

    public SweepAction {
        partitions = List.copyOf(partitions);
    }
}
