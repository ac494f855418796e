package org.slurmautoresume.supervisor.step.restart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.model.Step;
import org.slurmautoresume.supervisor.recovery.JobResizer;
import org.slurmautoresume.supervisor.recovery.NodeFaultRecovery;
import org.slurmautoresume.supervisor.recovery.SparePool;
import org.slurmautoresume.supervisor.recovery.SpareProvider;
import org.slurmautoresume.supervisor.step.AttemptLoopTest;
import org.slurmautoresume.supervisor.step.FakeAgent;
import org.slurmautoresume.supervisor.step.FakeSlurm;
import org.slurmautoresume.supervisor.step.ScriptedSrun;
import org.slurmautoresume.supervisor.step.ScriptedSrun.Scripted;
import org.slurmautoresume.supervisor.step.launch.Srun;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobTimeline;
import org.slurmautoresume.supervisor.step.record.PhasePause;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;

/** The response to nodes a running step's watch found gone, over a fake Slurm and a fake agent. */
class WatchResponseTest {

    @TempDir
    Path dir;

    private final FakeSlurm slurm =
            new FakeSlurm(List.of("node1", "node2", "node3"), List.of("node1", "node2", "node3"));
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final SupervisorLog log =
            new SupervisorLog(new PrintStream(err, true, StandardCharsets.UTF_8), FakeSlurm.JOB);
    private JobTimeline timeline;
    private final Step step = new Step(
            FakeSlurm.JOB,
            "0",
            "train",
            "RUNNING",
            "node[1-2]",
            OptionalInt.of(2),
            OptionalInt.of(2),
            Optional.empty(),
            Optional.empty(),
            OptionalInt.empty(),
            Map.of());
    private FakeAgent agent;
    /** The attempt the watch writes into. */
    private final Attempt attempt = new Attempt(1, NextAttempt.first(Optional.empty(), Map.of()));

    @BeforeEach
    void startAgent() throws IOException {
        agent = new FakeAgent(dir.resolve("agent.sock"));
        timeline = new JobTimeline(
                Optional.of(new EventHistory(dir, "tester", FakeSlurm.JOB, message -> {})), Optional.empty());
    }

    private List<EventHistory.Event> events() throws IOException {
        return EventHistory.read(EventHistory.fileFor(dir, "tester", FakeSlurm.JOB), new ArrayList<>());
    }

    @AfterEach
    void stopAgent() throws IOException {
        agent.close();
    }

    private WatchResponse response(boolean shrinkNow) {
        return response(attempt, shrinkNow);
    }

    private WatchResponse response(Attempt into, boolean shrinkNow) {
        SlurmClient client = slurm.client();
        NodeFaultRecovery recovery = new NodeFaultRecovery(
                client,
                new AgentClient(agent.socket(), Duration.ofSeconds(5)),
                new JobResizer(slurm, client, Duration.ofSeconds(5)),
                new SpareProvider(new SparePool(Optional.empty(), Optional.empty(), Optional.of("node3")), client),
                log::say);
        return new WatchResponse(
                into,
                recovery,
                marked -> shrinkNow,
                Optional.empty(),
                new SlurmControl(slurm),
                PhasePause.NONE,
                log,
                timeline);
    }

    private Srun running() {
        ScriptedSrun scripted = new ScriptedSrun(Scripted.runsUntilStopped());
        return scripted.start(List.of("srun"), Map.of(), null);
    }

    @Test
    void aSilentNodeIsMarkedTheStepCancelledAndTheNodeDroppedFromTheJob() throws IOException {
        WatchResponse response = response(true);
        Srun srun = running();

        response.silent(step, srun, List.of("node2"), List.of("node2"), Instant.now());

        assertEquals("node2", agent.requests("mark").get(0).path("nodes").get(0).asText());
        assertEquals(List.of(List.of("scancel", FakeSlurm.JOB + ".0")), slurm.ran("scancel"));
        assertEquals("node[1,3]", slurm.jobNodeList(), "node2 left the job at once");
        assertFalse(srun.isAlive(), "srun was stopped");
        Attempt.WatchMark mark = attempt.watchMark().orElseThrow();
        assertEquals(List.of("node2"), mark.nodes());
        assertTrue(mark.finding().contains("node2"), mark.finding());
        assertTrue(attempt.faultyNodesMarked());
        EventHistory.Event detection = AttemptLoopTest.only(events(), "detection");
        assertEquals("slurmd-probe", detection.details().get("source"));
        assertEquals("node2", detection.details().get("gone"));
    }

    @Test
    void aJobToBeRequeuedKeepsItsSizeWhileItsStepIsEnded() {
        WatchResponse response = response(false);

        response.silent(step, running(), List.of("node2"), List.of(), Instant.now());

        assertEquals(1, slurm.ran("scancel").size());
        assertEquals("node[1-3]", slurm.jobNodeList(), "the requeue wants the job's size");
        assertEquals(List.of("node2"), attempt.markedByWatch());
    }

    @Test
    void aStepThatAlreadyEndedIsNeitherCancelledNorShrunkNorCountedAsTheWatchsDoing() throws InterruptedException {
        WatchResponse response = response(true);
        Srun srun = running();
        srun.kill();
        assertTrue(srun.awaitExit(Duration.ofSeconds(5)));

        response.silent(step, srun, List.of("node2"), List.of(), Instant.now());

        assertEquals(1, agent.requests("mark").size(), "the agent still marks what it confirmed");
        assertTrue(slurm.ran("scancel").isEmpty(), slurm.ran().toString());
        assertEquals(
                Optional.empty(),
                attempt.watchMark(),
                "the attempt ended by itself: nothing of it is the watch's doing");
        assertFalse(attempt.faultyNodesMarked());
    }

    @Test
    void aNodeStateDetectionTakesItsLatencyFromTheReasonsTime() {
        java.time.LocalDateTime start = java.time.LocalDateTime.parse("2026-11-26T18:00:00");
        java.time.LocalDateTime now = java.time.LocalDateTime.parse("2026-11-26T18:00:12");
        org.slurmautoresume.slurm.parse.NodeParser parser = new org.slurmautoresume.slurm.parse.NodeParser();
        org.slurmautoresume.slurm.model.Node marked = parser.parse(
                "NodeName=node2 State=ALLOCATED+FAIL" + " Reason=Action:Reboot_Xid_79 [root@2026-11-26T18:00:10]");
        org.slurmautoresume.slurm.model.Node earlier = parser.parse(
                "NodeName=node3 State=ALLOCATED+FAIL" + " Reason=Action:Replace [root@2026-11-26T18:00:04]");
        org.slurmautoresume.slurm.model.Node noTime = parser.parse("NodeName=node4 State=DOWN Reason=gone");
        assertEquals(
                java.util.OptionalLong.of(2_000), WatchResponse.sinceMarked(List.of(marked), Optional.of(start), now));
        // The earliest of several: the first fault is the one the step waited on longest.
        assertEquals(
                java.util.OptionalLong.of(8_000),
                WatchResponse.sinceMarked(List.of(marked, earlier), Optional.of(start), now));
        // A reason from before the step started is not this fault's; one from the future, clocks apart.
        assertEquals(
                java.util.OptionalLong.empty(),
                WatchResponse.sinceMarked(
                        List.of(earlier), Optional.of(java.time.LocalDateTime.parse("2026-11-26T18:00:05")), now));
        assertEquals(
                java.util.OptionalLong.empty(),
                WatchResponse.sinceMarked(
                        List.of(marked), Optional.of(start), java.time.LocalDateTime.parse("2026-11-26T18:00:09")));
        assertEquals(
                java.util.OptionalLong.empty(), WatchResponse.sinceMarked(List.of(noTime), Optional.of(start), now));
    }
}
