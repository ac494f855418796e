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
        NodeReason reason = NodeReason.parse("bad gpu count=7 of 8 [root@2026-11-22T04:14:41]").orElseThrow();
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
        NodeReason reason = NodeReason.parse("Action:Replace [slurm@2026-11-22T04:00:00]").orElseThrow();
        assertTrue(reason.isAction("Replace"));
        assertFalse(reason.isAction("Reboot"));
        assertTrue(NodeReason.parse("Action:Reboot xid 79").orElseThrow().isAction("Reboot"));
    }

    @Test
    void nothingIsEmpty() {
        assertTrue(NodeReason.parse("(null)").isEmpty());
        assertTrue(NodeReason.parse("  ").isEmpty());
        assertTrue(NodeReason.parse(null).isEmpty());
    }
}
