package org.slurmautoresume.nodeops.health;

import java.util.Objects;

/**
 * One thing a check saw. {@code fault} findings fail the check and carry the action they need;
 * the others are evidence only (an application-class XID, a counter that is still zero).
 */
public record Finding(boolean fault, HealthAction action, String text) {

    public Finding {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(text, "text");
    }

    public static Finding fault(HealthAction action, String text) {
        return new Finding(true, action, text);
    }

    public static Finding note(String text) {
        return new Finding(false, HealthAction.NONE, text);
    }
}
