package org.slurmautoresume.nodeops.sweep;

import java.util.List;

/**
 * What one sweep would do: {@code actions} to apply, {@code heldBack} held by the safety caps
 * (each with why), and {@code findings} to report that no rule changes.
 */
public record SweepPlan(List<SweepAction> actions, List<Held> heldBack, List<Finding> findings) {

    /** An action the caps held back, and which cap. */
    public record Held(SweepAction action, String why) {
    }

    /** Something a person should look at; {@code kind} e.g. {@code drained-without-reason}. */
    public record Finding(String kind, String node, String why) {
    }

    public SweepPlan {
        actions = List.copyOf(actions);
        heldBack = List.copyOf(heldBack);
        findings = List.copyOf(findings);
    }

    public boolean isEmpty() {
        return actions.isEmpty() && heldBack.isEmpty();
    }
}
