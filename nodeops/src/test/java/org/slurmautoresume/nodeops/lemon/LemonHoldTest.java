package org.slurmautoresume.nodeops.lemon;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.parse.Records;

/** The hold the sweep and the agent both write: the state the node has kept, the lemon reason. */
class LemonHoldTest {

    private static final String REASON = "autoresume: lemon: marked faulty 3 times";

    @Test
    void aNodeBackFromAFailIsHeldFail() {
        assertEquals(
                new NodeMark("node2", NodeMark.State.FAIL, REASON),
                LemonHold.mark("node2", Records.node("show-node-idle-fail.txt", "node2"), REASON));
    }

    @Test
    void aDownNodeIsHeldDown() {
        assertEquals(
                new NodeMark("node2", NodeMark.State.DOWN, REASON),
                LemonHold.mark("node2", Records.node("show-node-down-not-responding.txt", "node2"), REASON));
    }
}
