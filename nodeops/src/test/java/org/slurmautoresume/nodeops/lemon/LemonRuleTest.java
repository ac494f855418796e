package org.slurmautoresume.nodeops.lemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class LemonRuleTest {

    private static final LocalDateTime NOW = LocalDateTime.parse("2026-11-28T12:00:00");

    private static FaultMark markDaysAgo(double days) {
        return new FaultMark("node2", NOW.minusMinutes((long) (days * 24 * 60)), "FAIL", "Action:Replace", "root(0)");
    }

    @Test
    void theThirdMarkWithinSevenDaysMakesALemonByDefault() {
        LemonRule rule = LemonRule.DEFAULT;
        assertFalse(rule.judge(List.of(markDaysAgo(6), markDaysAgo(1)), NOW).lemon());
        LemonVerdict verdict = rule.judge(List.of(markDaysAgo(6), markDaysAgo(1), markDaysAgo(0)), NOW);
        assertTrue(verdict.lemon());
        assertEquals(3, verdict.counted().size());
        assertEquals("marked faulty 3 times within the last 7 days (limit 3 in 7 days)", verdict.why());
    }

    @Test
    void marksOlderThanTheWindowDoNotCount() {
        LemonVerdict verdict = LemonRule.DEFAULT.judge(List.of(markDaysAgo(8), markDaysAgo(1), markDaysAgo(0)), NOW);
        assertFalse(verdict.lemon());
        assertEquals(2, verdict.counted().size());
    }

    @Test
    void zeroMarksTurnsTheRuleOff() {
        assertFalse(LemonRule.OFF
                .judge(List.of(markDaysAgo(1), markDaysAgo(0)), NOW)
                .lemon());
        assertFalse(LemonRule.OFF.enabled());
    }

    @Test
    void aWindowInSecondsIsDescribedSo() {
        assertEquals("2 in 90 seconds", new LemonRule(2, Duration.ofSeconds(90)).describe());
        assertEquals("1 in 1 hour", new LemonRule(1, Duration.ofHours(1)).describe());
        assertThrows(IllegalArgumentException.class, () -> new LemonRule(-1, Duration.ofDays(1)));
        assertThrows(IllegalArgumentException.class, () -> new LemonRule(3, Duration.ZERO));
    }

    @Test
    void theHoldsReasonIsTheToolkitsOwnAndNoActionReason() {
        String reason =
                LemonHold.reason(LemonRule.DEFAULT.judge(List.of(markDaysAgo(6), markDaysAgo(1), markDaysAgo(0)), NOW));
        assertTrue(LemonHold.isHold(reason), reason);
        assertFalse(reason.startsWith("Action:"), reason);
        assertTrue(reason.contains("last " + NOW), reason);
        assertTrue(reason.length() <= LemonHold.MAX_REASON, reason);
        assertFalse(LemonHold.isHold("Action:Replace autoresume: lemon: "));
    }
}
