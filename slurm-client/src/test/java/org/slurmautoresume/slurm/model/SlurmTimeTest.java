package org.slurmautoresume.slurm.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.Optional;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SlurmTimeTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "UTC",
                "Europe/Berlin",
                "America/New_York",
                "Asia/Kolkata",
                "Australia/Lord_Howe",
                "Pacific/Chatham"
            })
    void agreesWithJavaTimeAwayFromClockChanges(String zoneName) {
        ZoneId zone = ZoneId.of(zoneName);
        TimeZone timeZone = TimeZone.getTimeZone(zoneName);
        // Every 7 h 13 min over two years: both seasons, every hour of the day, none on a change.
        for (LocalDateTime t = LocalDateTime.parse("2025-01-01T00:00:00"); t.getYear() < 2027; t = t.plusMinutes(433)) {
            if (zone.getRules().getValidOffsets(t).size() != 1) {
                continue; // a skipped or repeated wall time: the test below
            }
            assertEquals(t.atZone(zone).toInstant(), SlurmTime.toInstant(t, timeZone), zoneName + " " + t);
        }
    }

    @Test
    void aSkippedTimeMovesForwardAndARepeatedOneReadsInStandardTime() {
        TimeZone berlin = TimeZone.getTimeZone("Europe/Berlin");
        // 2026-03-29 02:30 does not exist in Berlin (02:00 CET -> 03:00 CEST): 03:30 CEST, 01:30Z.
        assertEquals(
                Instant.parse("2026-03-29T01:30:00Z"),
                SlurmTime.toInstant(LocalDateTime.parse("2026-03-29T02:30:00"), berlin));
        // 2026-10-25 02:30 happens twice (03:00 CEST -> 02:00 CET): the second, CET, 01:30Z.
        assertEquals(
                Instant.parse("2026-10-25T01:30:00Z"),
                SlurmTime.toInstant(LocalDateTime.parse("2026-10-25T02:30:00"), berlin));
    }

    @Test
    void keepsMilliseconds() {
        assertEquals(
                Instant.parse("2026-11-26T10:00:00.123Z"),
                SlurmTime.toInstant(LocalDateTime.parse("2026-11-26T10:00:00.123456"), TimeZone.getTimeZone("UTC")));
    }

    @Test
    void readsWhatJavaTimeReadsAcrossEveryFieldsRange() {
        for (LocalDateTime t = LocalDateTime.parse("1999-12-31T23:59:59");
                t.getYear() < 2031;
                t = t.plusSeconds(86_399 * 3 + 7)) {
            String text = String.format(
                    "%04d-%02d-%02dT%02d:%02d:%02d",
                    t.getYear(), t.getMonthValue(), t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond());
            assertEquals(Optional.of(LocalDateTime.parse(text)), SlurmTime.parse(text), text);
            assertEquals(Optional.of(LocalDateTime.parse(text)), SlurmTime.parse(" " + text + ".25 "), text);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "Unknown",
                "None",
                "N/A",
                "(null)",
                "0",
                "",
                "2026-11-22T04:05",
                "2026-11-22 04:05:06",
                "2026-02-30T04:05:06",
                "2026-13-01T04:05:06",
                "2026-00-10T04:05:06",
                "2026-11-22T24:00:00",
                "2026-11-22T04:60:06",
                "2026-11-22T04:05:60",
                "2026-1a-22T04:05:06",
                "+026-11-22T04:05:06",
                "2026-11-22T04:05:0x",
                "2026/11/22T04:05:06"
            })
    void refusesWordsAndImpossibleTimes(String text) {
        assertEquals(Optional.empty(), SlurmTime.parse(text));
    }
}
