package org.slurmautoresume.nodeops.health;

import java.util.Optional;
import org.slurmautoresume.slurm.client.NodeMark;

/**
 * What a failed check asks for, in rising order of cost. A reset-class fault (cleared by a GPU
 * reset or a reboot) is REBOOT; an isolate-class fault (the hardware itself is bad) is REPLACE.
 * NONE on a failed check means "needs a person, not a reboot" (persistence mode off, a tool the
 * site named missing). FREE_SPACE is a filesystem out of space or inodes: the node is sound, it
 * is drained with the toolkit's own reason ({@link DiskDrain}) and the toolkit's own check lifts
 * that drain once space is back. Neither a reboot nor a new machine is the answer to a user who
 * filled a disk, and whoever fills it can empty it.
 *
 * <p>NONE is also every passing check's action, so it stays the first constant and {@link #worse}
 * can start from it. A report that holds both a person's failure and FREE_SPACE is a person's
 * drain, never lifted by a check: {@link HealthReport#worstAction} decides that, not this order.
 */
public enum HealthAction {
    NONE,
    FREE_SPACE,
    REBOOT,
    REPLACE;

    /** The more costly of the two. */
    public HealthAction worse(HealthAction other) {
        return other.ordinal() > ordinal() ? other : this;
    }

    /** The node reason Slurm users know ({@code Action:Replace}); empty for NONE and FREE_SPACE. */
    public String reason() {
        return mark().map(NodeMark.Action::reason).orElse("");
    }

    /** The mark's action for REBOOT and REPLACE; empty for NONE and FREE_SPACE, which drain the node instead. */
    public Optional<NodeMark.Action> mark() {
        return switch (this) {
            case NONE, FREE_SPACE -> Optional.empty();
            case REBOOT -> Optional.of(NodeMark.Action.REBOOT);
            case REPLACE -> Optional.of(NodeMark.Action.REPLACE);
        };
    }
}
