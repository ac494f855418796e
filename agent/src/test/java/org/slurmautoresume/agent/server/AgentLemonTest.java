package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.agent.protocol.AgentRequest;
import org.slurmautoresume.agent.protocol.AgentRequest.MarkState;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.agent.protocol.NodeDecision;
import org.slurmautoresume.nodeops.lemon.LemonRule;
import org.slurmautoresume.slurm.client.NodeMark.Action;
import org.slurmautoresume.slurm.model.Caller;
import org.slurmautoresume.slurm.probe.NodeProber;

/**
 * The lemon rule where the agent returns a node at a job's request: a node the agent marked for
 * the job, back and answering, whose fault marks in Slurm's accounting reach the rule is held
 * for an administrator, with the sweep's words, instead of resumed or rebooted back into service.
 * Job 6 (artest's) holds node3; the agent's mark of node3 is stamped 2026-11-22T04:14:02.
 */
class AgentLemonTest {

    private static final Caller ARTEST = new Caller(1001, "artest");
    private static final LocalDateTime NOW = LocalDateTime.parse("2026-11-22T04:30:00");
    private static final String TWO_EARLIER_MARKS = """
            node3|2026-11-17T08:00:00|2026-11-17T09:00:00|FAIL|root(0)|Action:Replace
            node3|2026-11-20T08:00:00|2026-11-20T08:30:00|FAIL|root(0)|Action:Reboot Xid 79
            """;
    private static final String THE_AGENTS_MARK = "node3|2026-11-22T04:14:02|Unknown|FAIL|root(0)|Action:Replace\n";
    private static final List<String> HOLD = List.of(
            "scontrol",
            "update",
            "nodename=node3",
            "state=fail",
            "reason=autoresume: lemon: marked faulty 3 times within the last 7 days (limit 3 in 7 days),"
                    + " last 2026-11-22T04:14:02; kept out for a person: autoresume node lemons");

    private final FakeSlurm slurm =
            new FakeSlurm().job("6", "show-job-running-shrunk-nokill.txt", null).node("node3", "show-node-idle.txt");
    private Set<String> silent = Set.of();
    private final NodeProber prober = node -> silent.contains(node.name())
            ? Optional.of("slurmd of " + node.name() + " refused the connection")
            : Optional.empty();
    private final AgentPolicy policy = new AgentPolicy(slurm.runner, prober, "root");

    /** The agent marks node3 for job 6 (it died), and its slurmd answers again (it came back). */
    private void node3MarkedByTheAgentAndBack() {
        policy.useLemonRule(LemonRule.DEFAULT, () -> NOW);
        silent = Set.of("node3");
        slurm.afterUpdate("node3", "show-node-idle-fail.txt");
        assertEquals(
                NodeDecision.MARKED,
                policy.handle(ARTEST, AgentRequest.mark("6", List.of("node3"), Action.REPLACE, MarkState.FAIL))
                        .decisions()
                        .get(0)
                        .decision());
        slurm.updates.clear();
        silent = Set.of();
    }

    private NodeDecision resumeNode3() {
        return policy.handle(ARTEST, AgentRequest.resume("6", List.of("node3")))
                .decisions()
                .get(0);
    }

    @Test
    void aNodeMarkedTheThirdTimeThisWeekIsHeldNotResumedAndTheJobsClaimEnds() {
        node3MarkedByTheAgentAndBack();
        slurm.events(TWO_EARLIER_MARKS + THE_AGENTS_MARK);

        NodeDecision held = resumeNode3();

        assertEquals(NodeDecision.HELD_LEMON, held.decision(), held.toString());
        assertTrue(held.why().contains("marked faulty 3 times within the last 7 days"), held.why());
        assertEquals(List.of(HOLD), slurm.updates, "the sweep's hold, and no resume");
        // The window before now, for node3 alone: the sweep's query.
        assertEquals(1, slurm.eventQueries.size(), slurm.eventQueries.toString());
        assertTrue(
                slurm.eventQueries.get(0).containsAll(List.of("nodes=node3", "start=2026-11-15T04:30")),
                slurm.eventQueries.toString());

        // The hold replaced the agent's mark: the job has no claim left, and asking again changes nothing.
        slurm.updates.clear();
        slurm.nodeText(
                "node3",
                slurm.nodeText("node3")
                        .replace(
                                "Reason=Action:Replace [root@2026-11-22T04:14:02]",
                                "Reason=autoresume: lemon: marked faulty 3 times [root@2026-11-22T04:30:00]"));
        assertEquals(NodeDecision.REFUSED, resumeNode3().decision());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void aNodeBelowTheRuleIsResumedAsAlways() {
        node3MarkedByTheAgentAndBack();
        slurm.events(TWO_EARLIER_MARKS.lines().skip(1).findFirst().orElseThrow() + "\n" + THE_AGENTS_MARK);

        assertEquals(NodeDecision.RESUMED, resumeNode3().decision());
        assertEquals(List.of(List.of("scontrol", "update", "nodename=node3", "state=resume")), slurm.updates);
    }

    @Test
    void withoutAccountingTheNodeIsResumedAndTheAnswerSaysTheRuleWasNotApplied() {
        node3MarkedByTheAgentAndBack();
        slurm.accountingDown();

        NodeDecision resumed = resumeNode3();

        assertEquals(NodeDecision.RESUMED, resumed.decision());
        assertTrue(resumed.why().contains("lemon-history-unavailable"), resumed.why());
        assertEquals(List.of(List.of("scontrol", "update", "nodename=node3", "state=resume")), slurm.updates);
    }

    @Test
    void theRuleTurnedOffReadsNoAccounting() {
        node3MarkedByTheAgentAndBack();
        policy.useLemonRule(LemonRule.OFF, () -> NOW);
        slurm.events(TWO_EARLIER_MARKS + THE_AGENTS_MARK);

        assertEquals(NodeDecision.RESUMED, resumeNode3().decision());
        assertEquals(List.of(), slurm.eventQueries);
    }

    @Test
    void theSitesRuleDecides() {
        node3MarkedByTheAgentAndBack();
        policy.useLemonRule(new LemonRule(2, Duration.ofHours(1)), () -> NOW);
        slurm.events("node3|2026-11-22T04:00:00|2026-11-22T04:05:00|FAIL|root(0)|Action:Replace\n" + THE_AGENTS_MARK);

        NodeDecision held = resumeNode3();

        assertEquals(NodeDecision.HELD_LEMON, held.decision(), held.toString());
        assertTrue(held.why().contains("(limit 2 in 1 hour)"), held.why());
    }

    /**
     * {@code nextstate=RESUME} would return a lemon once it is up: the agent holds it instead of
     * asking for the reboot, and the answer says so.
     */
    @Test
    void aLemonIsHeldInsteadOfRebootedBackIntoService() {
        node3MarkedByTheAgentAndBack();
        silent = Set.of("node3"); // the reboot is for a node the agent finds unhealthy
        slurm.events(TWO_EARLIER_MARKS + THE_AGENTS_MARK);

        AgentResponse response = policy.handle(ARTEST, AgentRequest.reboot("6", List.of("node3")));

        NodeDecision held = response.decisions().get(0);
        assertEquals(NodeDecision.HELD_LEMON, held.decision(), held.toString());
        assertTrue(held.why().startsWith("not rebooted: marked faulty 3 times"), held.why());
        assertEquals(List.of(HOLD), slurm.updates, "no scontrol reboot");
    }

    @Test
    void aNodeBelowTheRuleIsRebootedAsAlways() {
        node3MarkedByTheAgentAndBack();
        silent = Set.of("node3");
        slurm.events(THE_AGENTS_MARK);

        policy.handle(ARTEST, AgentRequest.reboot("6", List.of("node3")));

        assertEquals(
                List.of(List.of("scontrol", "reboot", "ASAP", "nextstate=RESUME", "reason=Action:Reboot", "node3")),
                slurm.updates);
    }
}
