package org.slurmautoresume.supervisor.recovery;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeState;

class ReturningNodeProviderTest {

    private static final LocalDateTime FAULT = LocalDateTime.of(2026, 11, 22, 6, 10, 23, 500_000_000);

    private static Node node(String state, LocalDateTime slurmdStarted) {
        return new Node(
                "node2",
                "127.0.0.2",
                "node2",
                OptionalInt.of(17002),
                NodeState.parse(state),
                Optional.empty(),
                Optional.empty(),
                Optional.ofNullable(slurmdStarted),
                List.of("debug"),
                Optional.empty(),
                OptionalInt.of(4),
                Optional.empty(),
                List.of(),
                Map.of());
    }

    @Test
    void aNodeIsBackWhenItAnswersFromASlurmdStartedAfterTheFault() {
        assertTrue(ReturningNodeProvider.isBack(node("IDLE+FAIL", FAULT.plusSeconds(20)), FAULT));
        // scontrol prints whole seconds: a restart within the fault's second still counts
        assertTrue(ReturningNodeProvider.isBack(node("IDLE+FAIL", FAULT.withNano(0)), FAULT));
    }

    @Test
    void theOldSlurmdOrASilentNodeIsNotBack() {
        assertFalse(ReturningNodeProvider.isBack(node("ALLOCATED+FAIL", FAULT.minusHours(1)), FAULT));
        assertFalse(ReturningNodeProvider.isBack(node("DOWN+NOT_RESPONDING", FAULT.plusSeconds(20)), FAULT));
        assertFalse(ReturningNodeProvider.isBack(node("IDLE+FAIL", null), FAULT));
    }
}
