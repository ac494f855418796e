package org.slurmautoresume.nodeops.lemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.slurmautoresume.slurm.parse.Records.node;
import static org.slurmautoresume.slurm.parse.Records.nodeWithReason;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Node;

class LemonListTest {

    private static final LemonRule TWO_IN_A_DAY = new LemonRule(2, Duration.ofDays(1));
    private static final LocalDateTime HELD = LocalDateTime.parse("2026-11-22T04:15:00");

    private static FaultMark mark(String time) {
        return new FaultMark("node2", LocalDateTime.parse(time), "FAIL", "Action:Replace", "root(0)");
    }

    private static Node held() {
        return nodeWithReason(
                "show-node-idle-fail.txt",
                "node2",
                LemonHold.PREFIX + "marked faulty 2 times [root@2026-11-22T04:15:00]");
    }

    @Test
    void aHeldNodeIsListedWithTheMarksThatMadeItOneHoweverLongAgo() {
        Map<String, List<FaultMark>> marks =
                Map.of("node2", List.of(mark("2026-11-21T10:00:00"), mark("2026-11-22T04:14:02")));
        LocalDateTime monthLater = HELD.plusDays(30);
        List<LemonList.Entry> list = LemonList.select(List.of(held()), marks, TWO_IN_A_DAY, monthLater);
        assertEquals(1, list.size());
        assertTrue(list.get(0).held());
        assertEquals(HELD, list.get(0).heldSince().get());
        assertTrue(list.get(0).verdict().lemon());
        assertEquals(2, list.get(0).verdict().counted().size());
        assertEquals(TWO_IN_A_DAY.since(HELD), LemonList.historySince(List.of(held()), TWO_IN_A_DAY, monthLater));
    }

    @Test
    void aNodeNotHeldIsListedOnlyOnceItsMarksReachTheRule() {
        Node waiting = node("show-node-fail-not-responding.txt", "node2");
        LocalDateTime now = LocalDateTime.parse("2026-11-22T05:00:00");
        assertTrue(LemonList.select(
                        List.of(waiting), Map.of("node2", List.of(mark("2026-11-22T04:14:02"))), TWO_IN_A_DAY, now)
                .isEmpty());
        List<LemonList.Entry> list = LemonList.select(
                List.of(waiting),
                Map.of("node2", List.of(mark("2026-11-21T06:00:00"), mark("2026-11-22T04:14:02"))),
                TWO_IN_A_DAY,
                now);
        assertEquals(1, list.size());
        assertFalse(list.get(0).held());
    }

    @Test
    void aNodeWithoutMarksIsNotListed() {
        assertTrue(LemonList.select(
                        List.of(node("show-node-idle-fail.txt", "node2")),
                        Map.of(),
                        TWO_IN_A_DAY,
                        LocalDateTime.parse("2026-11-22T05:00:00"))
                .isEmpty());
    }
}
