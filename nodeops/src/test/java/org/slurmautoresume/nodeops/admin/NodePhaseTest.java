package org.slurmautoresume.nodeops.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.slurmautoresume.slurm.parse.Records.node;
import static org.slurmautoresume.slurm.parse.Records.nodeWithReason;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodePhaseTest {

    @ParameterizedTest
    @CsvSource({
        "show-node-mixed-fail.txt, waiting-for-jobs, true",
        "show-node-fail-not-responding.txt, waiting-for-replacement, true",
        "show-node-idle-fail-not-responding.txt, waiting-for-replacement, true",
        "show-node-idle-fail.txt, back-under-same-hostname, false",
        "show-node-allocated-reboot-requested.txt, rebooting, false",
        "show-node-down-drain-reboot-issued.txt, rebooting, false",
        "show-node-idle, , false",
        "show-node-idle-drain.txt, , false",
        "show-node-down-not-responding.txt, , false"
    })
    void phaseOfARealNode(String fixture, String phase, boolean midReplacement) {
        String file = fixture.endsWith(".txt") ? fixture : fixture + ".txt";
        var node = node(file, "node2");
        assertEquals(Optional.ofNullable(phase), NodePhase.of(node).map(NodePhase::word));
        assertEquals(midReplacement, NodePhase.isMidReplacement(node));
    }

    @Test
    void aDrainedNodeWithAnActionReasonIsMarked() {
        var node = nodeWithReason("show-node-idle-drain.txt", "node2", "Action:Reboot [root@2026-11-22T04:00:00]");
        assertEquals(Optional.of(NodePhase.MARKED), NodePhase.of(node));
    }
}
