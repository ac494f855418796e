package org.slurmautoresume.slurm.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.NodeEvent;

class NodeEventParserTest {

    @Test
    void readsEveryEventOfARealListingWithItsReasonWhole() {
        List<NodeEvent> events = NodeEventParser.parse(Fixtures.read("slurm-22.05", "sacctmgr-show-event-node.txt"));
        assertEquals(7, events.size());
        NodeEvent first = events.get(0);
        assertEquals("node1", first.node());
        assertEquals(LocalDateTime.parse("2026-11-28T18:13:50"), first.start());
        assertEquals(Optional.of(LocalDateTime.parse("2026-11-28T18:13:50")), first.end());
        assertEquals("DRAIN", first.state());
        assertEquals("root(0)", first.user());
        assertEquals("Action:Replace", first.reason());
        assertEquals(
                "Action:Reboot Xid 79 GPU PCI:0000:3b:00 (GPU has fallen off the bus), seen by autoresume agent",
                events.get(3).reason());
        assertEquals("", events.get(5).reason());
    }

    @Test
    void anEventStillOpenHasNoEnd() {
        List<NodeEvent> events = NodeEventParser.parse(Fixtures.read("slurm-22.05", "sacctmgr-show-event-node.txt"));
        assertTrue(events.get(6).end().isEmpty());
    }

    @Test
    void aBarInAReasonStaysInTheReason() {
        NodeEvent event = NodeEventParser.parse("node3|2026-11-28T10:00:00|Unknown|DRAIN|root(0)|rack A|B swap\n")
                .get(0);
        assertEquals("rack A|B swap", event.reason());
    }

    @Test
    void garbageIsRefusedQuotingTheLine() {
        ParseException e = assertThrows(ParseException.class, () -> NodeEventParser.parse("sacctmgr: error: x\n"));
        assertTrue(e.getMessage().contains("sacctmgr: error: x"), e.getMessage());
        ParseException noStart = assertThrows(
                ParseException.class, () -> NodeEventParser.parse("node1|Unknown|Unknown|DOWN|root(0)|x\n"));
        assertTrue(noStart.getMessage().contains("start time"), noStart.getMessage());
    }
}
