package org.slurmautoresume.supervisor.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.agent.protocol.NodeDecision;
import org.slurmautoresume.slurm.client.SlurmClient;

/** How the supervisor reads the agent's answer to its request to mark suspect nodes. */
class NodeFaultRecoveryTest {

    private final AgentClient agent = mock(AgentClient.class);
    private final List<String> said = new ArrayList<>();
    private final NodeFaultRecovery recovery = new NodeFaultRecovery(
            mock(SlurmClient.class),
            agent,
            mock(JobResizer.class),
            new ReplacementProvider() {
                @Override
                public String name() {
                    return "test";
                }

                @Override
                public void begin(String jobId, List<String> failed) {}

                @Override
                public List<String> ready(
                        String jobId,
                        List<String> failed,
                        int missing,
                        java.util.Collection<String> exclude,
                        java.time.LocalDateTime failedAt) {
                    return List.of();
                }
            },
            said::add);

    /**
     * A node someone else took out (an administrator's FAIL, NHC's drain) is out for the step as
     * a marked one is, though the agent left it as it was; a healthy or refused one is not.
     */
    @Test
    void aNodeAlreadyTakenOutBySomeoneElseIsOutForTheStep() {
        when(agent.send(any()))
                .thenReturn(AgentResponse.of(
                        List.of(
                                new NodeDecision(
                                        "node1", NodeDecision.MARKED, "slurmd refused the connection", "set fail"),
                                new NodeDecision(
                                        "node2",
                                        NodeDecision.ALREADY_OUT,
                                        "Slurm state IDLE+FAIL",
                                        "already out of service: root set IDLE+FAIL with reason \"bad DIMM\""),
                                new NodeDecision("node3", NodeDecision.REFUSED, "Slurm state IDLE", "healthy")),
                        "job 6"));
        assertEquals(List.of("node1", "node2"), recovery.confirmAndMark("6", List.of("node1", "node2", "node3")));
        assertEquals(
                0,
                said.stream()
                        .filter(line -> line.contains("marked fail"))
                        .filter(line -> line.contains("node2"))
                        .count(),
                "node2 is not reported as the agent's mark: " + said);
    }
}
