package org.slurmautoresume.slurm.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.LocalDateTime;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NodeReasonTest {

    @Test
    void splitsTextUserAndTime() {
        NodeReason reason = NodeReason.parse("bad gpu count=7 of 8 [root@2026-11-22T04:14:41]")
                .orElseThrow();
        assertEquals("bad gpu count=7 of 8", reason.text());
        assertEquals(Optional.of("root"), reason.user());
        assertEquals(Optional.of(LocalDateTime.of(2026, 11, 22, 4, 14, 41)), reason.time());
    }

    @Test
    void keepsTextWithBracketsThatAreNotAStamp() {
        NodeReason reason = NodeReason.parse("xid [79]").orElseThrow();
        assertEquals("xid [79]", reason.text());
        assertTrue(reason.user().isEmpty());
    }

    @Test
    void recognisesToolkitActions() {
        NodeReason reason =
                NodeReason.parse("Action:Replace [slurm@2026-11-22T04:00:00]").orElseThrow();
        assertTrue(reason.isAction("Replace"));
        assertFalse(reason.isAction("Reboot"));
        assertTrue(NodeReason.parse("Action:Reboot xid 79").orElseThrow().isAction("Reboot"));
    }

    /** Since 23.02 slurmctld appends its own reason to one already set, after " : ", and signs it. */
    @Test
    void aSystemReasonAppendedAfterTheFirstKeepsTheFirstRecognisable() {
        NodeReason reason = NodeReason.parse("Action:Replace : Not responding [slurm@2026-11-24T23:56:10]")
                .orElseThrow();
        assertEquals("Action:Replace : Not responding", reason.text());
        assertEquals(Optional.of("slurm"), reason.user());
        assertEquals(Optional.of(LocalDateTime.of(2026, 11, 24, 23, 56, 10)), reason.time());
        assertTrue(reason.isAction("Replace"));
        assertFalse(reason.isAction("Reboot"));
        assertTrue(reason.startsWith("Action:Replace"));
        assertFalse(reason.startsWith("Not responding"));

        NodeReason rebooted =
                NodeReason.parse("Node unexpectedly rebooted : Not responding").orElseThrow();
        assertTrue(rebooted.startsWith("Node unexpectedly rebooted"));
        assertTrue(rebooted.startsWith("node UNEXPECTEDLY rebooted"));
        assertTrue(
                NodeReason.parse("Node unexpectedly rebooted").orElseThrow().startsWith("Node unexpectedly rebooted"));
        assertFalse(
                NodeReason.parse("Node unexpectedly rebooted twice")
                        .orElseThrow()
                        .startsWith("Node unexpectedly rebooted"),
                "only slurmctld's separator joins reasons");
        assertFalse(NodeReason.parse("Node").orElseThrow().startsWith("Node unexpectedly rebooted"));
    }

    @Test
    void nothingIsEmpty() {
        assertTrue(NodeReason.parse("(null)").isEmpty());
        assertTrue(NodeReason.parse("  ").isEmpty());
        assertTrue(NodeReason.parse(null).isEmpty());
    }
}
