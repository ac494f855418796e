package org.slurmautoresume.slurm.client;

import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;
import org.slurmautoresume.slurm.model.NodeState;

/**
 * What slurmctld does with {@code scontrol reboot}, and what the toolkit does around it (read
 * from Slurm's source, 22.05 to 25.11: docs/slurm-behaviour.md, "Reboot requests across
 * releases").
 *
 * <p>{@code _slurm_rpc_reboot_nodes} skips a FUTURE node, one with a reboot already pending or
 * under way, and one powered down or powering down, and still answers success: scontrol exits
 * 0 (from 24.05 it also prints "Skipping reboot of nodes ..." on stderr). So a reboot is known
 * to be taken only from the node read back afterwards.
 *
 * <p>A node whose reboot is issued is not resumed by hand: {@code state=resume} clears
 * REBOOT_ISSUED, after which Slurm no longer waits for the reboot to end and may take the boot
 * for an unexpected one (Slurm 25.11 refuses {@code state=idle} there; resume it still allows).
 */
public final class RebootRules {

    /** Set once Slurm took a reboot request, until the node is issued its reboot. */
    public static final String REQUESTED = "REBOOT_REQUESTED";
    /** Set once slurmctld sent the reboot, until the node registers again or ResumeTimeout passes. */
    public static final String REBOOT_ISSUED = "REBOOT_ISSUED";

    private static final List<String> POWER_SAVING = List.of("POWER_DOWN", "POWERING_DOWN", "POWERED_DOWN");

    /**
     * One node's answer to a reboot request: {@code taken} when Slurm will reboot it (or
     * already has) for this request; {@code state} as read back (empty when it could not be);
     * {@code detail} says what Slurm shows and, when not taken, why.
     */
    public record Answer(String node, boolean taken, String state, String detail) {

        /** Whether the node was in Slurm's answer at all (not: its state is unknown). */
        public boolean seen() {
            return !state.isEmpty();
        }
    }

    private RebootRules() {}

    /** A reboot asked for or under way: Slurm takes no other request for the node until it ends. */
    public static boolean pending(NodeState state) {
        return state.has(REQUESTED) || state.has(REBOOT_ISSUED);
    }

    /** Why Slurm skips a reboot request for a node in this state; empty when it takes it. */
    public static Optional<String> whySkipped(NodeState state) {
        String skips = "Slurm skips a reboot request for a node ";
        if (state.has("FUTURE")) {
            return Optional.of(skips + "that is FUTURE (not in service yet)");
        }
        if (state.has(REBOOT_ISSUED)) {
            return Optional.of(skips + "that is rebooting already (" + REBOOT_ISSUED + ")");
        }
        if (state.has(REQUESTED)) {
            return Optional.of(skips + "with a reboot pending (" + REQUESTED + "): the earlier request's"
                    + " nextstate and reason stand");
        }
        for (String flag : POWER_SAVING) {
            if (state.has(flag)) {
                return Optional.of(skips + "that power saving has powered down or is powering down (" + flag + ")");
            }
        }
        return Optional.empty();
    }

    /** Why the toolkit does not resume this node; empty when a resume is not a reboot's business. */
    public static Optional<String> whyNoResume(Node node) {
        if (!node.state().has(REBOOT_ISSUED)) {
            return Optional.empty();
        }
        String reason = node.reason()
                .map(r -> ", reason \"" + r.text() + "\""
                        + r.time().map(t -> " since " + t).orElse(""))
                .orElse("");
        return Optional.of("its reboot is issued and not finished ("
                + node.state().display() + reason + "):"
                + " Slurm returns it to service itself when it registers after the reboot, or sets it DOWN"
                + " \"reboot timed out\" after ResumeTimeout; a resume now would clear " + REBOOT_ISSUED + ", so Slurm"
                + " would stop waiting for the reboot and could take the boot for an unexpected one");
    }

    /**
     * What Slurm made of the request, from the node read back right after it: taken when the
     * node shows a reboot pending with the reason sent (slurmctld replaces the reason of a node
     * it takes, and appends " : reboot issued" once it sends the reboot), or when it booted
     * since {@code before} was read (the reboot went through already).
     *
     * @param reason the reason the request gave
     * @param before the node as read before the request, if it was
     * @param after the node as read back; empty when Slurm's answer did not hold it
     */
    public static Answer readBack(String node, String reason, Optional<Node> before, Optional<Node> after) {
        if (after.isEmpty()) {
            return new Answer(
                    node,
                    false,
                    "",
                    "not in Slurm's answer when read back after the request:"
                            + " whether Slurm will reboot it is not known");
        }
        NodeState state = after.get().state();
        Optional<NodeReason> nowReason = after.get().reason();
        if (pending(state)) {
            if (nowReason.map(r -> r.startsWith(reason)).orElse(false)) {
                return new Answer(node, true, state.display(), "Slurm shows " + state.display());
            }
            return new Answer(
                    node,
                    false,
                    state.display(),
                    "Slurm shows " + state.display() + " with reason \""
                            + nowReason.map(NodeReason::text).orElse("") + "\", another request's: "
                            + whySkipped(state).orElseThrow());
        }
        if (bootedSince(before, after.get())) {
            return new Answer(
                    node,
                    true,
                    state.display(),
                    "rebooted already (BootTime " + after.get().bootTime().get() + "), now " + state.display());
        }
        String why = whySkipped(state)
                .or(() -> before.flatMap(b -> whySkipped(b.state())))
                .orElse("Slurm did not mark it for a reboot, for a reason its state does not show");
        return new Answer(node, false, state.display(), "Slurm left it " + state.display() + ": " + why);
    }

    private static boolean bootedSince(Optional<Node> before, Node after) {
        return before.flatMap(Node::bootTime)
                .flatMap(then -> after.bootTime().map(now -> now.isAfter(then)))
                .orElse(false);
    }
}
