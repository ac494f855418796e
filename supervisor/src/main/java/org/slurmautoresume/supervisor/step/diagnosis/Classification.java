package org.slurmautoresume.supervisor.step.diagnosis;

import java.util.List;

/**
 * An outcome, the reason in words an operator can follow, and the nodes to blame (if any); for
 * {@link Outcome#NOT_STARTED}, the nodes the next attempt waits for.
 */
public record Classification(Outcome outcome, String reason, List<String> faultyNodes) {

    public Classification {
        faultyNodes = List.copyOf(faultyNodes);
    }

    static Classification of(Outcome outcome, String reason) {
        return new Classification(outcome, reason, List.of());
    }
}
