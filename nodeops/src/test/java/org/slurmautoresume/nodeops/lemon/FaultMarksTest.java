package org.slurmautoresume.nodeops.lemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.NodeEvent;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.NodeEventParser;

class FaultMarksTest {

    private static NodeEvent event(String start, String end, String state, String reason) {
        return new NodeEvent(
                "node2",
                LocalDateTime.parse(start),
                end == null ? Optional.empty() : Optional.of(LocalDateTime.parse(end)),
                state,
                "root(0)",
                reason);
    }

    @Test
    void onlyTheToolkitsFaultWordsCountNotAnAdministratorsOrNhcsDrains() {
        List<FaultMark> marks =
                FaultMarks.of(NodeEventParser.parse(Fixtures.read("slurm-22.05", "sacctmgr-show-event-node.txt")));
        // Action:Replace 18:13:50, Action:Replace 18:30:14, Action:Reboot 18:33:33, Action:Replace 20:58:33;
        // not NHC's drain, "bad DIMM" or the empty reason.
        assertEquals(
                List.of("2026-11-28T18:13:50", "2026-11-28T18:30:14", "2026-11-28T18:33:33", "2026-11-28T20:58:33"),
                marks.stream().map(m -> m.time().toString()).toList());
        assertTrue(marks.get(2).reason().startsWith("Action:Reboot Xid 79"));
    }

    @Test
    void eventsOfOneSpellOutOfServiceCountAsOneMark() {
        List<FaultMark> marks = FaultMarks.of(List.of(
                event("2026-11-28T10:00:00", "2026-11-28T10:00:30", "FAIL", "Action:Replace"),
                event("2026-11-28T10:00:30", "2026-11-28T10:05:00", "DOWN", "Action:Replace"),
                event("2026-11-28T10:05:01", "2026-11-28T10:06:00", "FAIL", "Action:Replace health check failed: x"),
                event("2026-11-28T12:00:00", null, "FAIL", "Action:Reboot")));
        assertEquals(
                List.of(LocalDateTime.parse("2026-11-28T10:00"), LocalDateTime.parse("2026-11-28T12:00")),
                marks.stream().map(FaultMark::time).toList());
    }

    @Test
    void aMarkInTheSecondAHoldEndedCameAfterTheReleaseAndCounts() {
        // Accounting keeps whole seconds: an administrator's resume and the next mark can share one.
        List<FaultMark> marks = FaultMarks.of(List.of(
                event("2026-11-28T09:00:00", "2026-11-28T09:30:00", "FAIL", "Action:Replace"),
                event("2026-11-28T09:30:00", "2026-11-28T10:00:00", "FAIL", "autoresume: lemon: marked faulty"),
                event("2026-11-28T10:00:00", null, "FAIL", "Action:Replace")));
        assertEquals(
                List.of(LocalDateTime.parse("2026-11-28T10:00")),
                marks.stream().map(FaultMark::time).toList());
    }

    @Test
    void aMarkAfterAnAdministratorsDrainInTheSameSpellIsNotANewFault() {
        // The toolkit wrote nothing while the drain stood; counting once per spell keeps a fault
        // that follows a drain without a gap from doubling anything.
        List<FaultMark> marks = FaultMarks.of(List.of(
                event("2026-11-28T10:00:00", "2026-11-28T10:10:00", "DRAIN", "maintenance"),
                event("2026-11-28T10:10:00", "2026-11-28T10:20:00", "FAIL", "Action:Replace")));
        assertEquals(1, marks.size());
    }

    @Test
    void marksBeforeAnAdministratorEndedALemonHoldAreForgiven() {
        List<FaultMark> marks = FaultMarks.of(List.of(
                event("2026-11-28T10:00:00", "2026-11-28T10:01:00", "FAIL", "Action:Replace"),
                event("2026-11-28T11:00:00", "2026-11-28T11:01:00", "FAIL", "Action:Replace"),
                event("2026-11-28T11:01:00", "2026-11-28T15:00:00", "FAIL", LemonHold.PREFIX + "marked faulty 2 times"),
                event("2026-11-28T16:00:00", null, "FAIL", "Action:Reboot")));
        assertEquals(
                List.of(LocalDateTime.parse("2026-11-28T16:00")),
                marks.stream().map(FaultMark::time).toList());
    }

    @Test
    void aHoldStillStandingForgivesNothing() {
        List<FaultMark> marks = FaultMarks.of(List.of(
                event("2026-11-28T10:00:00", "2026-11-28T10:01:00", "FAIL", "Action:Replace"),
                event("2026-11-28T11:00:00", "2026-11-28T11:01:00", "FAIL", "Action:Replace"),
                event("2026-11-28T11:01:00", null, "FAIL", LemonHold.PREFIX + "marked faulty 2 times")));
        assertEquals(2, marks.size());
    }

    @Test
    void marksAreGroupedByNode() {
        NodeEvent other = new NodeEvent(
                "node3",
                LocalDateTime.parse("2026-11-28T09:00:00"),
                Optional.empty(),
                "FAIL",
                "root(0)",
                "Action:Replace");
        Map<String, List<FaultMark>> byNode = FaultMarks.byNode(
                List.of(event("2026-11-28T10:00:00", "2026-11-28T10:01:00", "DRAIN", "maintenance"), other));
        assertEquals(Map.of("node3", FaultMarks.of(List.of(other))), byNode);
    }
}
