package org.slurmautoresume.slurm.model;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.TimeZone;

/** Slurm prints local times as {@code 2026-11-22T04:05:06}, or words for "no time". */
public final class SlurmTime {

    private SlurmTime() {}

    /**
     * The time at the start of {@code text} ({@code 2026-11-22T04:05:06}, anything after the
     * seconds ignored), or empty for Slurm's words and anything not a valid date and time. Read
     * digit by digit: {@code LocalDateTime.parse} builds java.time's ISO formatters on first use,
     * about 6 ms of a one-shot command's start.
     */
    public static Optional<LocalDateTime> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String t = text.strip();
        if (t.length() < 19
                || t.charAt(4) != '-'
                || t.charAt(7) != '-'
                || t.charAt(10) != 'T'
                || t.charAt(13) != ':'
                || t.charAt(16) != ':') {
            return Optional.empty(); // Unknown, None, N/A, (null), 0
        }
        int year = digits(t, 0, 4);
        int month = digits(t, 5, 2);
        int day = digits(t, 8, 2);
        int hour = digits(t, 11, 2);
        int minute = digits(t, 14, 2);
        int second = digits(t, 17, 2);
        if ((year | month | day | hour | minute | second) < 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(LocalDateTime.of(year, month, day, hour, minute, second));
        } catch (DateTimeException e) {
            return Optional.empty(); // 2026-02-30, 25:00:00
        }
    }

    /** The decimal number of {@code count} ASCII digits at {@code from}; -1 if one is not a digit. */
    private static int digits(String text, int from, int count) {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
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
