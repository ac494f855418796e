package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.verifyNoInteractions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.agent.protocol.AgentJson;
import org.slurmautoresume.agent.protocol.AgentRequest;
import org.slurmautoresume.agent.protocol.AgentRequest.MarkState;
import org.slurmautoresume.agent.protocol.AgentRequestException;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.agent.protocol.NodeDecision;
import org.slurmautoresume.slurm.client.NodeMark.Action;
import org.slurmautoresume.slurm.model.Caller;
import org.slurmautoresume.slurm.parse.Records;
import org.slurmautoresume.slurm.probe.NodeProber;

/**
 * The agent's decisions over recorded scontrol output. Job 6 is artest(1001)'s running
 * {@code --no-kill} job that shrank from node[1-3] to node[1,3] when node2 died.
 */
class AgentPolicyTest {

    private static final Caller ARTEST = new Caller(1001, "artest");
    private static final Caller MALLORY = new Caller(1002, "mallory");
    private static final Caller ROOT = new Caller(0, "root");

    private final FakeSlurm slurm = new FakeSlurm()
            .job("6", "show-job-running-shrunk-nokill.txt", null)
            .job("9", "show-job-completed.txt", null)
            .node("node1", "show-node-idle.txt")
            .node("node2", "show-node-down-not-responding.txt")
            .node("node3", "show-node-idle.txt")
            .node("node4", "show-node-down-not-responding.txt");
    /** Nodes whose slurmd the fake prober finds silent. */
    private Set<String> silent = Set.of();

    private final NodeProber prober = node -> silent.contains(node.name())
            ? Optional.of("slurmd at 127.0.0.1:" + node.port().getAsInt() + " refused the connection")
            : Optional.empty();
    private final AgentPolicy policy = new AgentPolicy(slurm.runner, prober, "root");

    private static AgentRequest markReplace(String jobId, String... nodes) {
        return AgentRequest.mark(jobId, List.of(nodes), Action.REPLACE, MarkState.FAIL);
    }

    @Test
    void aNodeAlreadyMarkedWithAnActionKeepsItsReason() {
        FakeSlurm marked = withFailingNode3();
        AgentResponse response = new AgentPolicy(marked.runner, prober, "root")
                .handle(ARTEST, AgentRequest.mark("6", List.of("node3"), Action.REBOOT, MarkState.FAIL));
        assertTrue(response.ok(), response.message());
        assertEquals(NodeDecision.MARKED, response.decisions().get(0).decision());
        assertTrue(
                response.decisions().get(0).toString().contains("Action:Replace"),
                response.decisions().toString());
        assertEquals(List.of(), marked.updates, "no scontrol update over the reason the node has");
    }

    /** Job 6 with its node3 marked fail already (Action:Replace). */
    private FakeSlurm withFailingNode3() {
        return new FakeSlurm()
                .job("6", "show-job-running-shrunk-nokill.txt", null)
                .node("node3", "show-node-mixed-fail.txt");
    }

    private static AgentRequest askDown(String node) {
        return AgentRequest.mark("6", List.of(node), Action.REPLACE, MarkState.DOWN);
    }

    @Test
    void aFailingDeadNodeAskedToGoDownGoesDownWithTheReasonItHas() {
        silent = Set.of("node3");
        FakeSlurm marked = withFailingNode3();
        AgentResponse response = new AgentPolicy(marked.runner, prober, "root").handle(ROOT, askDown("node3"));
        assertTrue(response.ok(), response.message());
        assertEquals(
                List.of(List.of("scontrol", "update", "nodename=node3", "state=down", "reason=Action:Replace")),
                marked.updates);
    }

    /** A node cut off the network takes the probe's whole timeout to say so: marking it probes it once, not twice. */
    @Test
    void aSilentNodeIsProbedOnceOnItsWayToBeingMarked() {
        silent = Set.of("node3");
        int[] probes = {0};
        NodeProber counting = node -> {
            probes[0]++;
            return prober.unreachable(node);
        };
        FakeSlurm jobOnNode3 = new FakeSlurm()
                .job("6", "show-job-running-shrunk-nokill.txt", null)
                .node("node3", "show-node-idle.txt");
        AgentResponse response = new AgentPolicy(jobOnNode3.runner, counting, "root").handle(ROOT, askDown("node3"));
        assertTrue(response.ok(), response.message());
        assertEquals(
                NodeDecision.MARKED,
                response.decisions().get(0).decision(),
                response.decisions().toString());
        assertEquals(1, probes[0], "the diagnosis's probe decides FAIL or DOWN too");
        assertEquals("state=down", jobOnNode3.updates.get(0).get(3), "a node that does not answer goes down");
    }

    /** A batch host with a GPU fault: DOWN would kill the job script; FAIL keeps it out and lets the job go. */
    @Test
    void aFailingNodeThatStillAnswersStaysFailWhenAskedToGoDown() {
        FakeSlurm marked = withFailingNode3();
        AgentResponse response = new AgentPolicy(marked.runner, prober, "root").handle(ROOT, askDown("node3"));
        assertTrue(response.ok(), response.message());
        assertEquals(NodeDecision.MARKED, response.decisions().get(0).decision());
        assertEquals(List.of(), marked.updates, "no DOWN over a node whose slurmd answers");
    }

    @Test
    void aLiveNodeAskedToGoDownIsSetFailInstead() {
        FakeSlurm idle = new FakeSlurm()
                .job("6", "show-job-running-shrunk-nokill.txt", null)
                .node("node3", "show-node-idle.txt");
        AgentPolicy withFailingCheck = new AgentPolicy(
                new org.slurmautoresume.slurm.client.SlurmClient(idle.runner),
                idle.runner,
                "scontrol",
                prober,
                "root",
                Optional.empty(),
                new AgentMetrics(),
                Optional.of(
                        node -> org.slurmautoresume.nodeops.health.NodeHealth.Verdict.unhealthy("replace", "Xid 79")));
        AgentResponse response = withFailingCheck.handle(ROOT, askDown("node3"));
        assertTrue(response.ok(), response.message());
        assertEquals(
                List.of(List.of("scontrol", "update", "nodename=node3", "state=fail", "reason=Action:Replace")),
                idle.updates);
    }

    @Test
    void refusesAnotherUsersJob() {
        AgentResponse response = policy.handle(MALLORY, markReplace("6", "node2"));
        assertFalse(response.ok());
        assertEquals(NodeDecision.REFUSED, response.decisions().get(0).decision());
        assertTrue(response.message().contains("belongs to artest(1001), not to mallory(1002)"), response.message());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void refusesANodeOutsideTheJob() {
        // node4 is down (so unhealthy) but was never part of job 6.
        AgentResponse response = policy.handle(ARTEST, markReplace("6", "node4"));
        assertFalse(response.ok());
        assertTrue(response.message().contains("not nodes of job 6: node4"), response.message());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void refusesTheWholeRequestWhenOneNodeIsOutside() {
        AgentResponse response = policy.handle(ARTEST, markReplace("6", "node2", "node4"));
        assertFalse(response.ok());
        assertEquals(
                List.of(NodeDecision.REFUSED, NodeDecision.REFUSED),
                response.decisions().stream().map(NodeDecision::decision).toList());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void aNodeThatLeftTheShrunkJobAfterWatchIsTheJobsToAskAbout() {
        // Without a watch, node2 (no longer in NodeList=node[1,3]) is not the caller's.
        assertFalse(policy.handle(ARTEST, markReplace("6", "node2")).ok());

        slurm.job("6", "show-job-running-shrunk-nokill.txt", "node[1-3]");
        AgentResponse watched = policy.handle(ARTEST, AgentRequest.watch("6"));
        assertTrue(watched.ok(), watched.message());
        assertEquals(
                List.of("node1", "node2", "node3"),
                watched.decisions().stream().map(NodeDecision::node).toList());

        // Slurm set it DOWN itself ("Not responding"): out for the job, and Slurm's reason stays.
        slurm.job("6", "show-job-running-shrunk-nokill.txt", null);
        AgentResponse response = policy.handle(ARTEST, markReplace("6", "node2"));
        assertTrue(response.ok(), response.message());
        NodeDecision decision = response.decisions().get(0);
        assertEquals(NodeDecision.ALREADY_OUT, decision.decision());
        assertTrue(decision.evidence().contains("DOWN+NOT_RESPONDING"), decision.evidence());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void aDrainBySitesNhcIsTheNodesVerdictAndStaysNhcs() {
        // node1 answers and Slurm has it MIXED+DRAIN, as LBNL NHC (HealthCheckProgram) drains a node it finds bad.
        String nhc = "NHC: check_nv_healthmon: GPU 3 has fallen off the bus";
        slurm.nodeText(
                "node1",
                org.slurmautoresume.slurm.parse.Records.nodeTextWithReason(
                        "show-node-mixed-drain.txt", "node1", nhc + " [root@2026-11-22T04:14:41]"));
        AgentResponse diagnosed = policy.handle(ARTEST, AgentRequest.diagnose("6", List.of("node1")));
        assertEquals(NodeDecision.UNHEALTHY, diagnosed.decisions().get(0).decision());
        assertTrue(
                diagnosed.decisions().get(0).evidence().startsWith("drained by the site's health check (NHC)"),
                diagnosed.decisions().get(0).evidence());

        // Out for the job's recovery, but NHC's: NHC returns it once its checks pass, so nothing is written.
        AgentResponse marked = policy.handle(ARTEST, markReplace("6", "node1"));
        assertTrue(marked.ok(), marked.message());
        assertEquals(NodeDecision.ALREADY_OUT, marked.decisions().get(0).decision(), marked.toString());
        assertEquals(List.of(), slurm.updates);
        assertFalse(policy.handle(ARTEST, AgentRequest.resume("6", List.of("node1")))
                .ok());
        assertFalse(policy.handle(ARTEST, AgentRequest.reboot("6", List.of("node1")))
                .ok());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void anAdministratorsDrainIsNoVerdict() {
        slurm.node("node1", "show-node-mixed-drain.txt"); // "bad gpu count=7 of 8", set by a person
        AgentResponse response = policy.handle(ARTEST, markReplace("6", "node1"));
        assertFalse(response.ok());
        assertEquals(NodeDecision.REFUSED, response.decisions().get(0).decision());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void refusesToMarkAHealthyNode() {
        AgentResponse response = policy.handle(ARTEST, markReplace("6", "node1"));
        assertFalse(response.ok());
        NodeDecision decision = response.decisions().get(0);
        assertEquals(NodeDecision.REFUSED, decision.decision());
        assertTrue(decision.why().contains("finds the node healthy"), decision.why());
        assertTrue(decision.evidence().contains("Slurm state IDLE"), decision.evidence());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void marksANodeSlurmStillCallsIdleWhenItsSlurmdIsSilent() {
        silent = Set.of("node3");
        AgentResponse response =
                policy.handle(ROOT, AgentRequest.mark("6", List.of("node3"), Action.REBOOT, MarkState.DOWN));
        assertTrue(response.ok(), response.message());
        assertTrue(response.decisions().get(0).evidence().contains("refused the connection"));
        assertEquals(
                List.of(List.of("scontrol", "update", "nodename=node3", "state=down", "reason=Action:Reboot")),
                slurm.updates);
    }

    @Test
    void diagnosesEachNodeWithEvidence() {
        silent = Set.of("node3");
        AgentResponse response = policy.handle(ARTEST, AgentRequest.diagnose("6", List.of("node1", "node3")));
        assertEquals(
                List.of(NodeDecision.HEALTHY, NodeDecision.UNHEALTHY),
                response.decisions().stream().map(NodeDecision::decision).toList());
        assertTrue(response.decisions().get(1).evidence().contains("127.0.0.1:17002"));
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void theSitesHealthCheckCanFindANodeUnhealthyThatSlurmCallsIdle() {
        // node1 is IDLE and its slurmd answers; the site's check (a GPU gone, say) disagrees, node3 passes.
        AgentPolicy withHealth = new AgentPolicy(
                new org.slurmautoresume.slurm.client.SlurmClient(slurm.runner),
                slurm.runner,
                "scontrol",
                prober,
                "root",
                Optional.empty(),
                new AgentMetrics(),
                Optional.of(node -> node.name().equals("node1")
                        ? org.slurmautoresume.nodeops.health.NodeHealth.Verdict.unhealthy(
                                "reboot", "`check node1` exited 8: Xid 79")
                        : org.slurmautoresume.nodeops.health.NodeHealth.Verdict.healthy("`check node3` passed")));
        AgentResponse diagnosed = withHealth.handle(ARTEST, AgentRequest.diagnose("6", List.of("node1", "node3")));
        assertEquals(
                List.of(NodeDecision.UNHEALTHY, NodeDecision.HEALTHY),
                diagnosed.decisions().stream().map(NodeDecision::decision).toList());
        assertTrue(
                diagnosed
                        .decisions()
                        .get(0)
                        .evidence()
                        .startsWith(
                                "health check failed (reboot): `check node1`" + " exited 8: Xid 79; Slurm state IDLE"),
                diagnosed.decisions().get(0).evidence());
        assertTrue(
                diagnosed.decisions().get(1).evidence().endsWith("health check passed"),
                diagnosed.decisions().get(1).evidence());

        AgentResponse marked = withHealth.handle(
                ARTEST, AgentRequest.mark("6", List.of("node1", "node3"), Action.REBOOT, MarkState.FAIL));
        assertEquals(
                List.of(NodeDecision.MARKED, NodeDecision.REFUSED),
                marked.decisions().stream().map(NodeDecision::decision).toList());
        assertEquals(
                List.of(List.of("scontrol", "update", "nodename=node1", "state=fail", "reason=Action:Reboot")),
                slurm.updates);
    }

    @Test
    void rootMayActOnAnyJob() {
        AgentResponse response = policy.handle(ROOT, AgentRequest.diagnose("6", List.of("node1")));
        assertTrue(response.ok(), response.message());
    }

    @Test
    void refusesAFinishedJob() {
        AgentResponse response = policy.handle(ROOT, AgentRequest.diagnose("9", List.of("node1")));
        assertFalse(response.ok());
        assertTrue(response.message().contains("COMPLETED"), response.message());
    }

    @Test
    void refusesAnUnknownJob() {
        AgentResponse response = policy.handle(ARTEST, AgentRequest.watch("987654"));
        assertFalse(response.ok());
        assertTrue(response.message().contains("not known"), response.message());
    }

    @Test
    void anOrdinaryUserMayNotSetALiveNodeDown() {
        // node1 answers; only the site's check calls it faulty. Root would get FAIL; the user gets nothing.
        AgentPolicy withFailingCheck = new AgentPolicy(
                new org.slurmautoresume.slurm.client.SlurmClient(slurm.runner),
                slurm.runner,
                "scontrol",
                prober,
                "root",
                Optional.empty(),
                new AgentMetrics(),
                Optional.of(
                        node -> org.slurmautoresume.nodeops.health.NodeHealth.Verdict.unhealthy("replace", "Xid 79")));
        AgentResponse response = withFailingCheck.handle(ARTEST, askDown("node1"));
        assertFalse(response.ok());
        assertTrue(
                response.decisions()
                        .get(0)
                        .why()
                        .startsWith("state=down is refused for artest(1001): the node's" + " slurmd answers"),
                response.decisions().get(0).why());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void anOrdinaryUserMayNotSetDownANodeThatRunsAnotherJob() {
        silent = Set.of("node3");
        slurm.job("7", "show-job-running.txt", "node3");
        AgentResponse response = policy.handle(ARTEST, askDown("node3"));
        assertFalse(response.ok());
        assertTrue(
                response.decisions().get(0).why().contains("down would also end job(s) "),
                response.decisions().get(0).why());
        assertEquals(List.of(), slurm.updates);
    }

    /** A dead node with nothing on it but the caller's job: down ends nobody else's work (a requeue needs it). */
    @Test
    void anOrdinaryUserMaySetDownADeadNodeRunningOnlyTheirJob() {
        silent = Set.of("node3");
        AgentResponse response = policy.handle(ARTEST, askDown("node3"));
        assertTrue(response.ok(), response.message());
        assertEquals(
                List.of(List.of("scontrol", "update", "nodename=node3", "state=down", "reason=Action:Replace")),
                slurm.updates);
    }

    @Test
    void anAdministratorsMarkIsNotResumedAtAJobsRequest() {
        // node1 carries Action:Replace set by root, as the agent's own would be; the agent never marked it.
        slurm.node("node1", "show-node-idle-fail.txt");
        AgentResponse response = policy.handle(ARTEST, AgentRequest.resume("6", List.of("node1")));
        assertFalse(response.ok());
        assertTrue(
                response.decisions().get(0).why().contains("it has no mark of its own on node1"),
                response.decisions().get(0).why());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void aNodeMarkedAgainAfterTheAgentsMarkIsNotResumed() {
        silent = Set.of("node1");
        slurm.afterUpdate("node1", "show-node-idle-fail.txt");
        assertTrue(policy.handle(ARTEST, markReplace("6", "node1")).ok());
        assertEquals(
                "Action:Replace",
                slurm.nodeText("node1")
                        .replaceAll("(?s).*Reason=(\\S+).*", "$1")
                        .strip());
        silent = Set.of();
        // An administrator drains it again, with the same words, later: Slurm's reason time moves on.
        slurm.nodeText("node1", slurm.nodeText("node1").replace("04:14:02]", "05:00:00]"));
        AgentResponse response = policy.handle(ARTEST, AgentRequest.resume("6", List.of("node1")));
        assertFalse(response.ok());
        assertTrue(
                response.decisions().get(0).why().contains("marked again"),
                response.decisions().get(0).why());
        assertEquals(1, slurm.updates.size(), "only the mark ran: " + slurm.updates);
    }

    @Test
    void aNodeTheUserShrankAwayIsNoLongerTheirs() {
        slurm.job("6", "show-job-running-shrunk-nokill.txt", "node[1-3]");
        assertTrue(policy.handle(ARTEST, AgentRequest.watch("6")).ok());
        // scontrol update job 6 NumNodes=2: node2 leaves the job while its slurmd still answers.
        slurm.job("6", "show-job-running-shrunk-nokill.txt", null);
        slurm.node("node2", "show-node-idle.txt");
        AgentResponse response = policy.handle(ARTEST, markReplace("6", "node2"));
        assertFalse(response.ok());
        assertTrue(response.message().contains("not nodes of job 6: node2"), response.message());
        // Forgotten, not just refused this time: a later fault on node2 does not make it the job's again.
        slurm.node("node2", "show-node-down-not-responding.txt");
        assertFalse(policy.handle(ARTEST, markReplace("6", "node2")).ok());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void aLongRequestIsRecheckedForEveryNode() {
        // While the agent examines node3, the job ends: node1, next, is no longer the job's to mark.
        Set<String> seen = new java.util.HashSet<>();
        NodeProber endingJob = node -> {
            if (seen.add(node.name()) && node.name().equals("node3")) {
                slurm.job("6", "show-job-completed.txt", null);
            }
            return Optional.of("slurmd at 127.0.0.1 refused the connection");
        };
        AgentResponse response =
                new AgentPolicy(slurm.runner, endingJob, "root").handle(ARTEST, markReplace("6", "node3", "node1"));
        assertEquals(
                List.of(NodeDecision.MARKED, NodeDecision.REFUSED),
                response.decisions().stream().map(NodeDecision::decision).toList());
        assertTrue(
                response.decisions().get(1).why().contains("COMPLETED"),
                response.decisions().get(1).why());
        assertEquals(
                List.of(List.of("scontrol", "update", "nodename=node3", "state=fail", "reason=Action:Replace")),
                slurm.updates);
    }

    @Test
    void resumesOnlyNodesTheAgentMarked() {
        // The agent marks node1 (silent); when it answers again, with the agent's reason, it is resumed.
        // node3 is idle with no reason at all and no mark of the agent's.
        silent = Set.of("node1");
        slurm.afterUpdate("node1", "show-node-idle-fail.txt");
        assertTrue(policy.handle(ARTEST, markReplace("6", "node1")).ok());
        silent = Set.of();
        slurm.updates.clear();
        AgentResponse response = policy.handle(ARTEST, AgentRequest.resume("6", List.of("node1", "node3")));
        assertEquals(
                List.of(NodeDecision.RESUMED, NodeDecision.REFUSED),
                response.decisions().stream().map(NodeDecision::decision).toList());
        assertEquals(List.of(List.of("scontrol", "update", "nodename=node1", "state=resume")), slurm.updates);
    }

    @Test
    void doesNotResumeANodeMarkedBySomeoneElseOrStillSilent() {
        silent = Set.of("node1");
        AgentPolicy asOtherUser = new AgentPolicy(slurm.runner, prober, "autoresume");
        assertTrue(asOtherUser.handle(ARTEST, markReplace("6", "node1")).ok());
        assertTrue(policy.handle(ARTEST, markReplace("6", "node1")).ok());
        slurm.updates.clear();
        slurm.node("node1", "show-node-idle-fail.txt");
        silent = Set.of();
        // The reason says root set it, and this agent runs as autoresume: not its mark any more.
        assertFalse(asOtherUser
                .handle(ARTEST, AgentRequest.resume("6", List.of("node1")))
                .ok());
        silent = Set.of("node1");
        assertFalse(policy.handle(ARTEST, AgentRequest.resume("6", List.of("node1")))
                .ok());
        assertEquals(List.of(), slurm.updates);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"op\":\"mark\",\"jobId\":\"6\",\"nodes\":[\"node1;reboot\"],\"action\":\"Replace\",\"state\":\"fail\"}",
                "{\"op\":\"mark\",\"jobId\":\"6\",\"nodes\":[\"$(id)\"],\"action\":\"Replace\",\"state\":\"fail\"}",
                "{\"op\":\"mark\",\"jobId\":\"$(id)\",\"nodes\":[\"node2\"],\"action\":\"Replace\",\"state\":\"fail\"}",
                "{\"op\":\"mark\",\"jobId\":\"6; reboot\",\"nodes\":[\"node2\"],\"action\":\"Replace\",\"state\":\"fail\"}",
                "{\"op\":\"mark\",\"jobId\":\"6\",\"nodes\":[\"--help\"],\"action\":\"Replace\",\"state\":\"fail\"}",
                "{\"op\":\"mark\",\"jobId\":\"6\",\"nodes\":[\"node[1-3]\"],\"action\":\"Replace\",\"state\":\"fail\"}",
                "{\"op\":\"mark\",\"jobId\":\"6\",\"nodes\":[\"node2\"],\"action\":\"Replace reason=x\",\"state\":\"fail\"}",
                "{\"op\":\"mark\",\"jobId\":\"6\",\"nodes\":[\"node2\"],\"action\":\"Replace\",\"state\":\"resume\"}",
                "{\"op\":\"mark\",\"jobId\":\"6\",\"nodes\":[\"node2\"],\"action\":\"Replace\",\"state\":\"fail\",\"reason\":\"x\"}",
                "{\"op\":\"shutdown\",\"jobId\":\"6\"}",
                "{\"op\":\"watch\",\"jobId\":\"6\",\"nodes\":[\"node4\"]}",
                "{\"op\":\"diagnose\",\"jobId\":\"6\",\"nodes\":[]}",
                "[\"mark\"]",
                "not json"
            })
    void unsafeOrMalformedRequestsAreRejectedBeforeAnyCommandRuns(String line) {
        assertThrows(AgentRequestException.class, () -> AgentRequest.fromJson(AgentJson.readTree(line)));
        verifyNoInteractions(slurm.runner);
    }

    @Test
    void acceptsTheDocumentedForms() {
        AgentRequest request = AgentRequest.fromJson(AgentJson.readTree(
                "{\"op\":\"mark\",\"jobId\":\"6\",\"nodes\":[\"node2\"],\"action\":\"Replace\",\"state\":\"fail\"}"));
        assertEquals(markReplace("6", "node2"), request);
        assertEquals(
                AgentRequest.watch("123_4"),
                AgentRequest.fromJson(AgentJson.readTree("{\"op\":\"watch\",\"jobId\":\"123_4\"}")));
    }

    @Test
    void jobIdsFollowSlurmsSyntax() {
        assertEquals("123+1", AgentRequest.watch("123+1").jobId());
        assertEquals("123", AgentRequest.watch("0123").jobId(), "read as Slurm reads it");
        for (String bad : List.of("123_[1-3]", "0", "4294967294", "1".repeat(10_240), "12\n3", "-1")) {
            AgentRequestException e = assertThrows(AgentRequestException.class, () -> AgentRequest.watch(bad));
            assertTrue(e.getMessage().startsWith("not a valid job id: \""), e.getMessage());
            assertTrue(e.getMessage().length() < 200 && !e.getMessage().contains("\n"), e.getMessage());
        }
    }

    /**
     * A caller's words that a refusal quotes (a node name, a field's name, a report's rule) reach
     * the agent's log line by line: a newline in them must not start a line of their own there.
     */
    @Test
    void aRefusalQuotesTheCallersWordsOnOneLine() {
        for (String line : List.of(
                "{\"op\":\"diagnose\",\"jobId\":\"6\",\"nodes\":[\"node1\\nFORGED agent: marked node9\"]}",
                "{\"op\":\"watch\",\"jobId\":\"6\",\"x\\r\\nFORGED\":1}",
                "{\"op\":\"report\",\"jobId\":\"6\",\"report\":{\"event\":\"detection\",\"attempt\":1,"
                        + "\"source\":\"log-rule\",\"rule\":\"a\\u2028FORGED\\u0007\",\"ruleState\":\"SLOW\"}}")) {
            AgentRequestException e =
                    assertThrows(AgentRequestException.class, () -> AgentRequest.fromJson(AgentJson.readTree(line)));
            assertTrue(e.getMessage().contains("FORGED"), e.getMessage());
            assertTrue(
                    e.getMessage().codePoints().noneMatch(c -> Character.isISOControl(c) || c == 0x2028),
                    e.getMessage());
        }
    }

    /** node3 of job 6 marked by the agent (silent, so unhealthy): what its supervisor does before a reboot. */
    private void markedByTheAgent(String node) {
        silent = Set.of(node);
        slurm.afterUpdate(node, "show-node-idle-fail.txt");
        assertEquals(
                NodeDecision.MARKED,
                policy.handle(ARTEST, AgentRequest.mark("6", List.of(node), Action.REBOOT, MarkState.FAIL))
                        .decisions()
                        .get(0)
                        .decision());
        slurm.updates.clear();
    }

    @Test
    void rebootAsksSlurmToRebootAnUnhealthyNodeAndReturnItToService() {
        markedByTheAgent("node3");
        // What slurmctld shows right after taking the request: the reason replaced by the agent's.
        slurm.afterUpdateText(
                "node3",
                Records.nodeTextWithReason(
                        "show-node-idle-drain-reboot-requested.txt",
                        "node3",
                        "Action:Reboot [root@2026-11-22T04:14:46]"));
        AgentResponse response = policy.handle(ARTEST, AgentRequest.reboot("6", List.of("node3")));
        assertTrue(response.ok(), response.message());
        assertEquals(NodeDecision.REBOOTING, response.decisions().get(0).decision());
        assertTrue(
                response.decisions().get(0).why().contains("Slurm shows IDLE+DRAIN+REBOOT_REQUESTED"),
                response.decisions().get(0).why());
        assertEquals(
                List.of(List.of("scontrol", "reboot", "ASAP", "nextstate=RESUME", "reason=Action:Reboot", "node3")),
                slurm.updates);
        // The reboot's own reason is still the agent's mark: the node is the job's to resume afterwards.
        slurm.node("node3", "show-node-idle-fail.txt");
        slurm.nodeText(
                "node3",
                slurm.nodeText("node3")
                        .replace(
                                "Reason=Action:Replace [root@2026-11-22T04:14:02]",
                                "Reason=Action:Reboot [root@2026-11-22T04:14:46]"));
        silent = Set.of();
        assertEquals(
                NodeDecision.RESUMED,
                policy.handle(ARTEST, AgentRequest.resume("6", List.of("node3")))
                        .decisions()
                        .get(0)
                        .decision());
    }

    @Test
    void aRebootSlurmSkippedIsAFailureInTheAnswerAndTheAudit(@TempDir Path dir) throws IOException {
        // node3's slurmd is silent; by the time the request reaches slurmctld, power saving has
        // powered the node down, and Slurm skips it while answering success.
        markedByTheAgent("node3");
        slurm.afterUpdate("node3", "show-node-idle-powered-down.txt");
        Path file = dir.resolve("audit.log");
        String answer;
        try (AuditLog audit = new AuditLog(file)) {
            answer = new AgentService(policy, audit)
                    .handle(ARTEST, "{\"op\":\"reboot\",\"jobId\":\"6\",\"nodes\":[\"node3\"]}");
        }
        assertTrue(answer.startsWith("{\"ok\":false") && answer.contains("\"decision\":\"failed\""), answer);
        assertTrue(
                answer.contains("Slurm did not take the reboot")
                        && answer.contains("IDLE+POWERED_DOWN")
                        && answer.contains("power saving"),
                answer);
        String audited = Files.readString(file);
        assertTrue(audited.contains("Slurm did not take the reboot") && audited.contains("IDLE+POWERED_DOWN"), audited);
        assertFalse(audited.contains("reboot-requested"), audited);
        assertEquals(1, slurm.updates.size(), slurm.updates.toString());
    }

    /** What the caller asked for is under way: rebooting, so its supervisor waits for the node, and nothing is sent. */
    @Test
    void aNodeAlreadyRebootingIsNotAskedAgain() {
        slurm.node("node3", "show-node-down-drain-reboot-issued.txt");
        AgentResponse response = policy.handle(ARTEST, AgentRequest.reboot("6", List.of("node3")));
        assertTrue(response.ok(), response.message());
        NodeDecision decision = response.decisions().get(0);
        assertEquals(NodeDecision.REBOOTING, decision.decision());
        assertTrue(
                decision.why().startsWith("already rebooting, not asked again: Slurm shows DOWN+DRAIN+REBOOT_ISSUED"),
                decision.why());
        assertEquals(List.of(), slurm.updates);
    }

    /** Slurm clears DRAIN after a reboot, not FAIL: the answer does not promise the node back in service. */
    @Test
    void aFailMarkedNodeIsSaidToComeBackFail() {
        markedByTheAgent("node3");
        slurm.afterUpdateText(
                "node3",
                Records.nodeTextWithReason(
                                "show-node-idle-drain-reboot-requested.txt",
                                "node3",
                                "Action:Reboot [root@2026-11-22T04:14:46]")
                        .replace("State=IDLE+DRAIN+", "State=IDLE+DRAIN+FAIL+"));
        AgentResponse response = policy.handle(ARTEST, AgentRequest.reboot("6", List.of("node3")));
        NodeDecision decision = response.decisions().get(0);
        assertEquals(NodeDecision.REBOOTING, decision.decision(), decision.why());
        assertTrue(
                decision.why().contains("comes back still FAIL")
                        && !decision.why().contains("back in service"),
                decision.why());
    }

    @Test
    void aNodeWhoseRebootIsIssuedIsNotResumed() {
        slurm.node("node1", "show-node-down-drain-reboot-issued.txt");
        AgentResponse response = policy.handle(ARTEST, AgentRequest.resume("6", List.of("node1")));
        assertFalse(response.ok());
        assertTrue(
                response.decisions().get(0).why().startsWith("its reboot is issued and not finished"),
                response.decisions().get(0).why());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void rebootOfAHealthyNodeIsRefused() {
        AgentResponse response = policy.handle(ARTEST, AgentRequest.reboot("6", List.of("node1")));
        assertEquals(NodeDecision.REFUSED, response.decisions().get(0).decision());
        assertTrue(
                response.decisions().get(0).why().contains("healthy"),
                response.decisions().get(0).why());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void replaceWithoutASiteCommandIsRefusedAndRunsNothing() {
        AgentResponse response = policy.handle(ARTEST, AgentRequest.replace("6", List.of("node3")));
        assertEquals(NodeDecision.REFUSED, response.decisions().get(0).decision());
        assertTrue(
                response.decisions().get(0).why().contains("--replace-command"),
                response.decisions().get(0).why());
        assertEquals(List.of(), slurm.updates);
    }

    /** An administrator's FAIL ("bad DIMM") on a node of the user's job. */
    private void failedByAnAdministrator(String node) {
        slurm.nodeText(
                node,
                Records.nodeTextWithReason(
                        "show-node-idle-fail.txt", node, "bad DIMM, do not use [root@2026-11-22T05:00:00]"));
    }

    @Test
    void aMarkOverAnAdministratorsFailChangesNothingAndGivesTheJobNoClaim() {
        failedByAnAdministrator("node1");
        AgentResponse marked = policy.handle(ARTEST, markReplace("6", "node1"));
        assertTrue(marked.ok(), marked.message());
        NodeDecision decision = marked.decisions().get(0);
        assertEquals(NodeDecision.ALREADY_OUT, decision.decision());
        assertTrue(decision.why().contains("bad DIMM, do not use"), decision.why());
        assertEquals(List.of(), slurm.updates, "the administrator's reason is not overwritten");

        assertEquals(
                NodeDecision.REFUSED,
                policy.handle(ARTEST, AgentRequest.resume("6", List.of("node1")))
                        .decisions()
                        .get(0)
                        .decision());
        assertEquals(
                NodeDecision.REFUSED,
                policy.handle(ARTEST, AgentRequest.reboot("6", List.of("node1")))
                        .decisions()
                        .get(0)
                        .decision());
        silent = Set.of("node1");
        assertEquals(
                NodeDecision.ALREADY_OUT,
                policy.handle(ARTEST, askDown("node1")).decisions().get(0).decision(),
                "nor is it set down over the administrator's decision");
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void anAdministratorsChangeAfterTheMarkEndsTheJobsClaim() {
        // The agent marks node1, the job lets it go, an administrator repairs it and fails it again.
        silent = Set.of("node1");
        slurm.afterUpdate("node1", "show-node-idle-fail.txt");
        assertTrue(policy.handle(ARTEST, markReplace("6", "node1")).ok());
        slurm.job("6", "show-job-running-shrunk-nokill.txt", "node3");
        slurm.updates.clear();
        silent = Set.of();
        failedByAnAdministrator("node1");

        AgentResponse resumed = policy.handle(ARTEST, AgentRequest.resume("6", List.of("node1")));
        assertFalse(resumed.ok(), resumed.toString());
        assertTrue(resumed.message().contains("not nodes of job 6: node1"), resumed.message());
        // Returned to service in between is the same: the claim is gone, and stays gone.
        slurm.node("node1", "show-node-idle.txt");
        assertFalse(policy.handle(ARTEST, markReplace("6", "node1")).ok());
        failedByAnAdministrator("node1");
        slurm.nodeText("node1", slurm.nodeText("node1").replace("bad DIMM, do not use", "Action:Replace"));
        assertFalse(
                policy.handle(ARTEST, AgentRequest.resume("6", List.of("node1")))
                        .ok(),
                "an Action:Replace written later by someone else is not the agent's mark");
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void theJobsOwnMarkGoesDownWithItsStampRenewed() {
        silent = Set.of("node3");
        slurm.afterUpdate("node3", "show-node-idle-fail.txt");
        assertTrue(policy.handle(ARTEST, markReplace("6", "node3")).ok());
        slurm.afterUpdateText(
                "node3",
                slurm.nodeText("node3")
                        .replace("State=IDLE+FAIL", "State=DOWN+FAIL")
                        .replace("04:14:02]", "04:20:00]"));
        AgentResponse down = policy.handle(ARTEST, askDown("node3"));
        assertEquals(NodeDecision.MARKED, down.decisions().get(0).decision(), down.toString());
        assertEquals(
                List.of("scontrol", "update", "nodename=node3", "state=down", "reason=Action:Replace"),
                slurm.updates.get(1));
        silent = Set.of();
        assertEquals(
                NodeDecision.RESUMED,
                policy.handle(ARTEST, AgentRequest.resume("6", List.of("node3")))
                        .decisions()
                        .get(0)
                        .decision(),
                "the down mark is still the job's own");
    }

    private AgentPolicy withReplaceCommand() throws IOException {
        return new AgentPolicy(
                new org.slurmautoresume.slurm.client.SlurmClient(slurm.runner),
                slurm.runner,
                "scontrol",
                prober,
                "root",
                Optional.of(new SiteReplaceCommand(
                        Path.of("/bin/true"),
                        java.time.Duration.ofSeconds(5),
                        org.mockito.Mockito.mock(org.slurmautoresume.slurm.exec.CommandRunner.class))));
    }

    @Test
    void replaceIsRefusedWhereAnotherJobRuns() throws IOException {
        AgentPolicy replacing = withReplaceCommand();
        silent = Set.of("node3");
        slurm.afterUpdate("node3", "show-node-idle-fail.txt");
        assertTrue(replacing.handle(ARTEST, markReplace("6", "node3")).ok());
        slurm.job("7", "show-job-running.txt", "node3");

        NodeDecision refused = replacing
                .handle(ARTEST, AgentRequest.replace("6", List.of("node3")))
                .decisions()
                .get(0);
        assertEquals(NodeDecision.REFUSED, refused.decision());
        assertTrue(refused.why().contains("7"), refused.why());

        slurm.job("7", "show-job-completed.txt", "node3");
        assertEquals(
                NodeDecision.REPLACING,
                replacing
                        .handle(ARTEST, AgentRequest.replace("6", List.of("node3")))
                        .decisions()
                        .get(0)
                        .decision(),
                "once the other job has ended");
    }

    /** A job record nobody can read (a user's line break in its name) decides nothing for another job. */
    @Test
    void anotherJobsSpoiledRecordDoesNotBlockDown() {
        silent = Set.of("node3");
        slurm.job("7", "show-job-running.txt", "node1");
        slurm.jobText("7", slurm.jobText("7").replace(" JobName=", " JobName=x\nJobId=7 JobName="));
        AgentResponse response = policy.handle(ARTEST, askDown("node3"));
        assertTrue(response.ok(), response.toString());
        assertEquals(
                List.of(List.of("scontrol", "update", "nodename=node3", "state=down", "reason=Action:Replace")),
                slurm.updates);
    }

    /** Any user can fill a filesystem the site's check watches: that alone marks nothing at a job's request. */
    @Test
    void aFilesystemShortOfSpaceIsNoFaultToMark() {
        AgentPolicy withFullDisk = new AgentPolicy(
                new org.slurmautoresume.slurm.client.SlurmClient(slurm.runner),
                slurm.runner,
                "scontrol",
                prober,
                "root",
                Optional.empty(),
                new AgentMetrics(),
                Optional.of(node -> org.slurmautoresume.nodeops.health.NodeHealth.Verdict.unhealthy(
                        org.slurmautoresume.nodeops.health.NodeHealth.Verdict.FREE_SPACE, "/scratch 99% used")));
        assertEquals(
                NodeDecision.HEALTHY,
                withFullDisk
                        .handle(ARTEST, AgentRequest.diagnose("6", List.of("node1")))
                        .decisions()
                        .get(0)
                        .decision());
        AgentResponse marked = withFullDisk.handle(ARTEST, markReplace("6", "node1"));
        assertEquals(NodeDecision.REFUSED, marked.decisions().get(0).decision(), marked.toString());
        assertEquals(List.of(), slurm.updates);
    }
}
