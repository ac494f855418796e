package org.slurmautoresume.e2e;

import java.time.Duration;
import java.time.Instant;

/**
 * One row of the fault matrix (docs/fault-matrix.md), printed by the test of each fault class
 * in a fixed form that benchmarks/scripts/fault-matrix.sh collects: how long after the fault the
 * supervisor detected it and launched the step again, from the job's own timeline.
 */
final class FaultMatrix {

    private FaultMatrix() {}

    static void row(String faultClass, Instant fault, Timeline timeline, String outcome) {
        Timeline.Event detection = timeline.all(Timeline.Kind.DETECTION).get(0);
        Timeline.Event relaunch = timeline.all(Timeline.Kind.LAUNCH).stream()
                .filter(e -> e.attempt() == 2)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no second launch: " + timeline));
        System.out.printf(
                "fault-matrix: class=%s detected_ms=%d running_again_ms=%d source=%s outcome=%s%n",
                faultClass,
                Duration.between(fault, detection.at()).toMillis(),
                Duration.between(fault, relaunch.at()).toMillis(),
                detection.details().getOrDefault("source", "?"),
                outcome);
    }
}
