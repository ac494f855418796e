package org.slurmautoresume.nodeops.admin;

import java.util.Optional;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;

/**
 * Where a node marked {@code Action:Replace} or {@code Action:Reboot} stands, read from its
 * state, its reason's time and its slurmd's start time (Slurm 22.05 behaviour, see
 * docs/slurm-behaviour.md: a replaced node registers again as {@code IDLE+FAIL} with the reason
 * kept and a new SlurmdStartTime).
 */
public enum NodePhase {
    /** FAIL while jobs still run on it: Slurm waits for them before the node can be replaced. */
    WAITING_FOR_JOBS("waiting-for-jobs"),
    /** DOWN or FAIL and not back yet: the replacement (or repair) has not registered. */
    WAITING_FOR_REPLACEMENT("waiting-for-replacement"),
    /** DOWN or FAIL, responding, its slurmd started after the mark: ready for a check and resume. */
    BACK_UNDER_SAME_HOSTNAME("back-under-same-hostname"),
    /** A reboot was asked for or is under way. */
    REBOOTING("rebooting"),
    /** Marked with an action reason but in none of the phases above (drained, say). */
    MARKED("marked");

    public static final String REPLACE = "Replace";
    public static final String REBOOT = "Reboot";

    private final String word;

    NodePhase(String word) {
        this.word = word;
    }

    /** The phase's name in output and JSON: {@code waiting-for-jobs}. */
    public String word() {
        return word;
    }

    /** The phase of a node in replacement or reboot; empty for a node in neither. */
    public static Optional<NodePhase> of(Node node) {
        if (node.state().has("REBOOT_REQUESTED") || node.state().has("REBOOT_ISSUED")) {
            return Optional.of(REBOOTING);
        }
        if (!hasActionReason(node)) {
            return Optional.empty();
        }
        if (isBack(node)) {
            return Optional.of(BACK_UNDER_SAME_HOSTNAME);
        }
        if (node.state().isFail()
                && (node.state().has("ALLOCATED")
                        || node.state().has("MIXED")
                        || node.state().has("COMPLETING"))) {
            return Optional.of(WAITING_FOR_JOBS);
        }
        if (node.state().isFail() || node.state().isDown()) {
            return Optional.of(WAITING_FOR_REPLACEMENT);
        }
        return Optional.of(MARKED);
    }

    /** The reason names {@code Action:Replace} or {@code Action:Reboot}. */
    public static boolean hasActionReason(Node node) {
        return node.reason().map(r -> r.isAction(REPLACE) || r.isAction(REBOOT)).orElse(false);
    }

    /**
     * DOWN or FAIL, answering the controller, and its slurmd started at or after the reason was
     * set: the node (or its replacement) registered again since it was marked. Slurm prints
     * whole seconds and a replacement can register within the second it was marked (seen on
     * the local cluster), hence "at or after".
     */
    public static boolean isBack(Node node) {
        return (node.state().isFail() || node.state().isDown())
                && node.reason()
                        .flatMap(NodeReason::time)
                        .map(node::answersFromSlurmdStartedSince)
                        .orElse(false);
    }

    /**
     * Marked {@code Action:Replace}, DOWN or FAIL, and not back: the vendor's advice is to leave
     * such a node alone until the replacement registers, so commands refuse unless forced.
     */
    public static boolean isMidReplacement(Node node) {
        return node.reason().map(r -> r.isAction(REPLACE)).orElse(false)
                && (node.state().isFail() || node.state().isDown())
                && !isBack(node);
    }
}
