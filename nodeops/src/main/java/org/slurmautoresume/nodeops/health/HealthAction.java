package org.slurmautoresume.nodeops.health;

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
        return switch (this) {
            case NONE -> "";
            case REBOOT -> "Action:Reboot";
            case REPLACE -> "Action:Replace";
        };
    }
}
