package org.slurmautoresume.supervisor.policy;

import java.time.Instant;
import java.util.Objects;

/**
 * One fault to decide on.
 *
 * @param kind             what went wrong
 * @param at               when it was detected
 * @param stepStillRunning true when the step must still be stopped (a hang found by a log rule,
 *                         a node lost under a step that runs on); only then can {@code dump} help
 * @param description      the evidence in one line, for the decision's log
 */
public record Fault(FaultKind kind, Instant at, boolean stepStillRunning, String description) {

    public Fault {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(description, "description");
    }
}
