package org.slurmautoresume.slurm.model;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.TimeZone;

/** Slurm prints local times as {@code 2026-11-22T04:05:06}, or words for "no time". */
public final class SlurmTime {

    private SlurmTime() {}

    public static Optional<LocalDateTime> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String trimmed = text.strip();
        if (trimmed.length() < 19 || trimmed.charAt(4) != '-' || trimmed.charAt(10) != 'T') {
            return Optional.empty(); // Unknown, None, N/A, (null), 0
        }
        try {
            return Optional.of(LocalDateTime.parse(trimmed.substring(0, 19)));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /**
     * A local time Slurm printed, as an instant on this machine's clock (slurmctld and this
     * process share the site's zone). Converted with {@code java.util}'s zone data, not
     * {@code java.time}'s: the first use of a named {@code ZoneId} has {@code ZoneRulesProvider}
     * search every jar on the class path for other rule providers, about 20 ms of CPU that a
     * supervised srun's start paid for one conversion. A time a clock change skipped is moved
     * forward by the change; one it repeated is read in standard time.
     */
    public static Instant toInstant(LocalDateTime local) {
        return toInstant(local, TimeZone.getDefault());
    }

    static Instant toInstant(LocalDateTime local, TimeZone zone) {
        long wall = local.toEpochSecond(ZoneOffset.UTC) * 1000 + local.getNano() / 1_000_000;
        // The offset at an instant near the answer, then the offset at that instant: exact
        // away from a clock change, and across one it settles as the javadoc above says.
        long near = wall - zone.getOffset(wall);
        return Instant.ofEpochMilli(wall - zone.getOffset(near));
    }
}
