package org.slurmautoresume.nodeops.health;

import org.slurmautoresume.slurm.model.Node;

/**
 * The check the sweep runs before it returns a node to service. Pluggable: the default probes
 * the node's slurmd ({@link SlurmdProbeHealth}); a policy's {@code healthCommand} runs a
 * program instead ({@link CommandNodeHealth}), such as the toolkit's own health checks.
 */
@FunctionalInterface
public interface NodeHealth {

    Verdict check(Node node);

    /**
     * {@code action}: what an unhealthy node needs, {@code none}, {@code reboot}, {@code replace}
     * or {@code free-space} (only a filesystem short of space or inodes: the node is sound, a
     * reboot or a replacement would not help; {@code autoresume health --mark} drains the node
     * and lifts the drain itself).
     */
    record Verdict(boolean healthy, String action, String detail) {

        /** The action word of a verdict that only a filesystem is short of space or inodes. */
        public static final String FREE_SPACE = "free-space";

        /** Unhealthy for want of space alone: no fault of the node a mark, reboot or replacement would mend. */
        public boolean onlyShortOfSpace() {
            return !healthy && FREE_SPACE.equals(action);
        }

        public static Verdict healthy(String detail) {
            return new Verdict(true, "none", detail);
        }

        public static Verdict unhealthy(String action, String detail) {
            return new Verdict(false, action, detail);
        }
    }
}
