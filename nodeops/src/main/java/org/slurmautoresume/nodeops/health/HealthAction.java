package org.slurmautoresume.nodeops.health;

import java.util.Optional;
import org.slurmautoresume.slurm.client.NodeMark;

/**
 * What a failed check asks for, in rising order of cost. A reset-class fault (cleared by a GPU
 * reset or a reboot) is REBOOT; an isolate-class fault (the hardware itself is bad) is REPLACE.
 * NONE on a failed check means "needs a person, not a reboot" (a full disk, say).
 */
public enum HealthAction {
    NONE, REBOOT, REPLACE;

    /** The more costly of the two. */
    public HealthAction worse(HealthAction other) {
        return other.ordinal() > ordinal() ? other : this;
    }

    /** The node reason Slurm users know ({@code Action:Replace}); empty for NONE. */
    public String reason() {
        return mark().map(NodeMark.Action::reason).orElse("");
    }

    /** The mark's action for REBOOT and REPLACE; empty for NONE, which drains the node instead. */
    public Optional<NodeMark.Action> mark() {
        return switch (this) {
            case NONE -> Optional.empty();
            case REBOOT -> Optional.of(NodeMark.Action.REBOOT);
            case REPLACE -> Optional.of(NodeMark.Action.REPLACE);
        };
    }
}
