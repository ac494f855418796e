package org.slurmautoresume.supervisor.step.restart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.supervisor.policy.Decision;
import org.slurmautoresume.supervisor.policy.Fault;
import org.slurmautoresume.supervisor.policy.FaultKind;
import org.slurmautoresume.supervisor.policy.SignalNumber;
import org.slurmautoresume.supervisor.recovery.JobResizer;
import org.slurmautoresume.supervisor.recovery.NodeFaultRecovery;
import org.slurmautoresume.supervisor.recovery.SpareProvider;
import org.slurmautoresume.supervisor.step.FakeAgent;
import org.slurmautoresume.supervisor.step.FakeSlurm;
import org.slurmautoresume.supervisor.step.ScriptedSrun;
import org.slurmautoresume.supervisor.step.ScriptedSrun.Scripted;
import org.slurmautoresume.supervisor.step.diagnosis.Classification;
import org.slurmautoresume.supervisor.step.diagnosis.Outcome;
import org.slurmautoresume.supervisor.step.record.JobTimeline;
import org.slurmautoresume.supervisor.step.record.PhasePause;
import org.slurmautoresume.supervisor.step.record.RestartHistoryFile;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;

/** Carrying out decisions, over a fake Slurm and a fake agent, with the real gate deciding. */
class RestartActionsTest {

    @TempDir
    Path dir;

    private final FakeSlurm slurm = new FakeSlurm(List.of("node1", "node2"), List.of("node1", "node2", "node3"));
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final SupervisorLog log =
            new SupervisorLog(new PrintStream(err, true, StandardCharsets.UTF_8), FakeSlurm.JOB);
    private final JobTimeline timeline = new JobTimeline(Optional.empty(), Optional.empty());
    private final Map<String, String> environment = new HashMap<>();
    private FakeAgent agent;

    @BeforeEach
    void startAgent() throws IOException {
        agent = new FakeAgent(dir.resolve("agent.sock"));
        environment.put("SLURM_JOB_ID", FakeSlurm.JOB);
        environment.put("AUTORESUME_AGENT_SOCKET", agent.socket().toString());
        environment.put("TMPDIR", dir.toString());
    }

    @AfterEach
    void stopAgent() throws IOException {
        agent.close();
    }

    private SupervisorSettings settings() {
        return SupervisorSettings.fromEnvironment(environment);
    }

    private RestartActions actions() {
        SupervisorSettings settings = settings();
        SlurmClient client = slurm.client();
        Optional<NodeFaultRecovery> recovery = settings.spares()
                .map(pool -> new NodeFaultRecovery(
                        client,
                        new AgentClient(agent.socket(), Duration.ofSeconds(5)),
                        new JobResizer(slurm, client, Duration.ofSeconds(5)),
                        new SpareProvider(pool, client),
                        log::say));
        return new RestartActions(
                client,
                slurm,
                recovery,
                recovery,
                settings,
                Optional.of(JobId.parse(FakeSlurm.JOB)),
                log,
                timeline,
                Optional.of(new RestartHistoryFile(dir, "tester", FakeSlurm.JOB)),
                () -> false,
                PhasePause.NONE);
    }

    private static Attempt firstAttempt() {
        return new Attempt(1, NextAttempt.first(Optional.empty(), Map.of()));
    }

    private RestartGate gate() {
        return RestartGate.of(null, settings(), List.of());
    }

    private static AttemptEnd nodeFault(List<String> nodes) {
        return new AttemptEnd(
                1,
                new Classification(Outcome.NODE_FAULT, "node(s) down", nodes),
                Optional.empty(),
                2,
                System.nanoTime());
    }

    @Test
    void aRuleStopCancelsTheStepByItsIdOnceKnown() {
        ScriptedSrun.Running srun = (ScriptedSrun.Running)
                new ScriptedSrun(Scripted.runsUntilStopped()).start(List.of("srun"), Map.of(), null);
        slurm.onScancel("4", srun::kill);
        timeline.stepFound("4");
        Fault fault = new Fault(FaultKind.RULE_VIOLATION, Instant.now(), true, "Beat HANGING");

        actions().stopForRule(srun, gate().decide(fault), EndOfAttemptTest.hanging());

        assertFalse(srun.isAlive());
        assertEquals(List.of(List.of("scancel", "42.4")), slurm.ran("scancel"));
        assertTrue(srun.signals().isEmpty(), "no signal when Slurm can cancel the step");
    }

    @Test
    void aRuleStopSignalsSrunWhileTheStepIsNotKnownYet() {
        ScriptedSrun.Running srun = (ScriptedSrun.Running)
                new ScriptedSrun(Scripted.runsUntilStopped()).start(List.of("srun"), Map.of(), null);
        Fault fault = new Fault(FaultKind.RULE_VIOLATION, Instant.now(), true, "Beat HANGING");

        actions().stopForRule(srun, gate().decide(fault), EndOfAttemptTest.hanging());

        assertEquals(List.of(SignalNumber.TERM), srun.signals());
        assertTrue(slurm.ran("scancel").isEmpty());
    }

    @Test
    void aRequeueSlurmRefusesEndsWithTheStepsStatusAndSaysWhy() {
        environment.put(SupervisorSettings.ON_EXHAUSTED, "requeue");
        slurm.refuse("requeue", "scontrol: error: Requested operation is presently disabled\n");
        RestartGate gate = gate();
        Fault fault = new Fault(FaultKind.APPLICATION_FAILURE, Instant.now(), false, "exit 2");
        Decision decision = gate.decide(fault);

        AfterAttempt end = actions()
                .carryOut(
                        decision,
                        fault,
                        "application failure: exit 2",
                        new AttemptEnd(
                                2,
                                new Classification(Outcome.APP_FAILURE, "exit 2", List.of()),
                                Optional.empty(),
                                0,
                                0),
                        gate,
                        firstAttempt(),
                        KnownPaths.UNKNOWN);

        assertEquals(new AfterAttempt.End(2), end);
        assertEquals(1, slurm.ran("requeue").size());
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("Slurm did not requeue job 42"), err.toString());
    }

    @Test
    void aNodeFaultIsRepairedFromTheSparePoolAndTheNextAttemptGetsTheNewNodeList() {
        environment.put("AUTORESUME_SPARE_NODES", "node3");
        slurm.nodeState("node2", "DOWN+NOT_RESPONDING");
        RestartGate gate = gate();
        RestartActions actions = actions();
        Fault fault = new Fault(FaultKind.NODE_FAULT, Instant.now(), false, "node2 down");

        Attempt attempt = firstAttempt();
        AfterAttempt end = actions.carryOut(
                gate.decide(fault),
                fault,
                "node fault",
                nodeFault(List.of("node2")),
                gate,
                attempt,
                KnownPaths.UNKNOWN);

        NextAttempt next =
                assertInstanceOf(AfterAttempt.RunAgain.class, end, "re-run").next();
        assertEquals("node[1,3]", next.variables().get("SLURM_JOB_NODELIST"));
        assertEquals("2", next.variables().get("SLURM_JOB_NUM_NODES"));
        assertEquals("node1", next.variables().get("MASTER_NODE"));
        assertFalse(next.overlap(), "the failed step is not on record: nothing to share");
        assertTrue(next.placedOn().isEmpty(), "without in-job spares Slurm places the step");
        assertEquals(1, agent.requests("mark").size());
        assertTrue(attempt.faultyNodesMarked(), "recovery marked the node: a requeue after it keeps it out");
        assertTrue(attempt.inherited().variables().isEmpty(), "the attempt's own value is untouched");
    }

    @Test
    void aNodeFaultOnTheBatchHostCannotBeRepairedAndGivesUp() {
        environment.put("AUTORESUME_SPARE_NODES", "node3");
        slurm.nodeState("node1", "DOWN+NOT_RESPONDING");
        RestartGate gate = gate();
        RestartActions actions = actions();
        Fault fault = new Fault(FaultKind.NODE_FAULT, Instant.now(), false, "node1 down");

        AfterAttempt end = actions.carryOut(
                gate.decide(fault),
                fault,
                "node fault",
                nodeFault(List.of("node1")),
                gate,
                firstAttempt(),
                KnownPaths.UNKNOWN);

        assertEquals(new AfterAttempt.End(1), end);
        assertTrue(
                err.toString(StandardCharsets.UTF_8)
                        .contains("the batch host node1 is faulty and cannot leave the job"),
                err.toString());
        assertTrue(slurm.ran("salloc").isEmpty());
    }
}
