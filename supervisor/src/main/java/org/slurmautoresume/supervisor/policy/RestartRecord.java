package org.slurmautoresume.supervisor.policy;

import java.time.Instant;
import java.util.Objects;

/** One recovery that was carried out: when, and at which level. GIVE_UP is never recorded. */
public record RestartRecord(Instant at, RestartLevel level) {

    public RestartRecord {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(level, "level");
    }
}
