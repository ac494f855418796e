package org.slurmautoresume.supervisor.rules;

import java.time.Instant;

/**
 * One value read from a matching line's capture group. {@code text} is what the group held;
 * {@code value} is NaN when it was not a finite number.
 */
public record DataPoint(Instant at, String text, double value) {

    public boolean readable() {
        return Double.isFinite(value);
    }
}
