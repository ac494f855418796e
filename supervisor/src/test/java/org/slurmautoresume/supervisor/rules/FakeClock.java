package org.slurmautoresume.supervisor.rules;

import java.time.Instant;
import java.time.InstantSource;

/** A clock the test moves by hand (the checkpoint tests use it too). */
public final class FakeClock implements InstantSource {

    private long millis = Instant.parse("2026-11-23T10:00:00Z").toEpochMilli();

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis);
    }

    @Override
    public long millis() {
        return millis;
    }

    public void advanceSeconds(double seconds) {
        millis += Math.round(seconds * 1000);
    }
}
