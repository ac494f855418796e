package org.slurmautoresume.supervisor.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.agent.protocol.NodeDecision;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeState;

class ReturningNodeProviderTest {

    private static final LocalDateTime FAULT = LocalDateTime.of(2026, 11, 22, 6, 10, 23, 500_000_000);

    private static final String LEMON_WHY = "not resumed: marked faulty 3 times within the last 7 days (limit 3 in"
            + " 7 days); held for an administrator";

    private final SlurmClient slurm = mock(SlurmClient.class);
    private final AgentClient agent = mock(AgentClient.class);
    private final List<String> said = new ArrayList<>();

    private static Node node(String state, LocalDateTime slurmdStarted) {
        return node("node2", state, slurmdStarted);
    }

    private static Node node(String name, String state, LocalDateTime slurmdStarted) {
        return new Node(
                name,
                "127.0.0.2",
                name,
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

    private void agentAnswers(String node, String decision, String why) {
        when(agent.send(any()))
                .thenReturn(
                        AgentResponse.of(List.of(new NodeDecision(node, decision, "Slurm state IDLE+FAIL", why)), ""));
    }

    /** The agent held the one failed node as a lemon: it never comes back, so the wait ends at once. */
    @Test
    void aFailedNodeHeldAsALemonEndsTheWait() {
        when(slurm.node("node2")).thenReturn(Optional.of(node("IDLE+FAIL", FAULT.plusSeconds(20))));
        agentAnswers("node2", NodeDecision.HELD_LEMON, LEMON_WHY);
        ReturningNodeProvider provider = new ReturningNodeProvider(Replacement.SAME_HOSTNAME, slurm, agent, said::add);

        ReplacementProvider.ProviderException gaveUp = assertThrows(
                ReplacementProvider.ProviderException.class,
                () -> provider.ready("6", List.of("node2"), 1, List.of("node1"), FAULT));

        assertTrue(gaveUp.getMessage().contains("held node2 as a lemon"), gaveUp.getMessage());
        assertTrue(gaveUp.getMessage().contains("marked faulty 3 times"), gaveUp.getMessage());
    }

    /** Two failed, one needed: the other failed node may still come back, so the wait goes on. */
    @Test
    void aLemonAmongFailedNodesThatCanStillMakeUpTheJobIsPassedOver() {
        when(slurm.node("node2")).thenReturn(Optional.of(node("IDLE+FAIL", FAULT.plusSeconds(20))));
        when(slurm.node("node3")).thenReturn(Optional.of(node("node3", "DOWN+NOT_RESPONDING", null)));
        agentAnswers("node2", NodeDecision.HELD_LEMON, LEMON_WHY);
        ReturningNodeProvider provider = new ReturningNodeProvider(Replacement.SAME_HOSTNAME, slurm, agent, said::add);

        assertEquals(List.of(), provider.ready("6", List.of("node2", "node3"), 1, List.of("node1"), FAULT));
        assertTrue(said.stream().anyMatch(l -> l.startsWith("node2 is back but held as a lemon")), said.toString());
        // The held node is not asked about again.
        assertEquals(List.of(), provider.ready("6", List.of("node2", "node3"), 1, List.of("node1"), FAULT));
        org.mockito.Mockito.verify(agent, org.mockito.Mockito.times(1)).send(any());
    }

    /** A reboot recovery whose node the agent held instead of rebooting cannot go on. */
    @Test
    void aRebootTheAgentAnsweredWithAHoldEndsTheProvider() {
        agentAnswers("node2", NodeDecision.HELD_LEMON, LEMON_WHY.replace("resumed", "rebooted"));
        ReturningNodeProvider provider = new ReturningNodeProvider(Replacement.REBOOT, slurm, agent, said::add);

        assertThrows(ReplacementProvider.ProviderException.class, () -> provider.begin("6", List.of("node2")));
    }
}
