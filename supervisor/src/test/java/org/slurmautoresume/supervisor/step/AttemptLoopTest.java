package org.slurmautoresume.supervisor.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.supervisor.config.AutoresumeConfig;
import org.slurmautoresume.supervisor.policy.DumpSettings;
import org.slurmautoresume.supervisor.policy.RestartPolicy;
import org.slurmautoresume.supervisor.policy.SignalNumber;
import org.slurmautoresume.supervisor.policy.Strategy;
import org.slurmautoresume.supervisor.rules.LogRule;
import org.slurmautoresume.supervisor.rules.MetricOperator;
import org.slurmautoresume.supervisor.step.ScriptedSrun.Scripted;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;

/**
 * The attempt loop's decisions without a cluster: the real supervisor, classifier, restart gate,
 * policy and recovery over a fake Slurm (its command runner), a fake agent (its socket) and a
 * scripted srun.
 */
public class AttemptLoopTest {

    @TempDir
    Path dir;

    private SupervisedRun job;

    @BeforeEach
    void jobOnTwoNodesWithTwoSpare() throws IOException {
        job = new SupervisedRun(
                dir, new FakeSlurm(List.of("node1", "node2"), List.of("node1", "node2", "node3", "node4")));
    }

    @AfterEach
    void stopAgent() throws IOException {
        job.close();
    }

    @Test
    void aStepThatSucceedsRunsOnce() throws Exception {
        ScriptedSrun srun = new ScriptedSrun(Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(1, srun.starts().size());
        Map<String, String> env = srun.starts().get(0).environment();
        assertEquals("1", env.get(StepSupervisor.GUARD));
        assertEquals("1", env.get(StepSupervisor.ATTEMPT));
        assertEquals(SupervisedRun.ARGV, srun.starts().get(0).argv());
        // The recovery paths are recorded when the job has been read, beside the first launch.
        assertEquals(
                List.of("launch", "attempt-ended", "succeeded"),
                job.timelineWords().stream()
                        .filter(w -> !w.equals("recovery-paths"))
                        .toList());
        assertEquals(
                1,
                job.timelineWords().stream()
                        .filter(w -> w.equals("recovery-paths"))
                        .count());
        assertTrue(
                job.slurm.ran("scancel").isEmpty() && job.slurm.ran("requeue").isEmpty());
        assertFalse(job.said().contains("retrying"), job.said());
    }

    @Test
    void aStepSrunCouldNotStartForWantOfSlurmctldStartsAgainOutsideTheBudgets() throws Exception {
        ScriptedSrun srun = new ScriptedSrun(
                Scripted.exits(1)
                        .stderr(
                                "srun: error: Unable to create step for job 42: Unable to contact slurm controller (connect failure)"),
                Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(2, srun.starts().size());
        assertEquals(
                List.of("NOT_STARTED", "SUCCEEDED"),
                job.timeline().stream()
                        .filter(e -> e.event().equals("attempt-ended"))
                        .map(e -> e.details().get("outcome"))
                        .toList());
        assertTrue(job.timeline().stream().noneMatch(e -> e.event().equals("decision")), "no budget was spent");
    }

    @Test
    void aStepRefusedOnANodeARestartedSlurmctldHasNotHeardFromStartsAgainOnceTheNodeRegistered() throws Exception {
        java.util.concurrent.atomic.AtomicReference<String> stateAtRerun =
                new java.util.concurrent.atomic.AtomicReference<>();
        ScriptedSrun srun = new ScriptedSrun(
                Scripted.exits(1)
                        .stderr(
                                "srun: error: Unable to create step for job 42: Memory required by task is not available")
                        .onStart(running -> {
                            // slurmctld restarted: node2 is UNKNOWN for three reads, then its slurmd registered.
                            job.slurm.nodeState("node2", "UNKNOWN");
                            job.slurm.nodeStateAfterReads("node2", 3, "ALLOCATED");
                        }),
                Scripted.exits(0).onStart(running -> stateAtRerun.set(job.slurm.nodeState("node2"))));

        assertEquals(0, job.run(srun));

        assertEquals(2, srun.starts().size());
        assertEquals("ALLOCATED", stateAtRerun.get(), "started again only once node2 registered");
        assertEquals(SupervisedRun.ARGV, srun.starts().get(1).argv(), "the same srun, nothing added");
        assertEquals(
                List.of("NOT_STARTED", "SUCCEEDED"),
                job.timeline().stream()
                        .filter(e -> e.event().equals("attempt-ended"))
                        .map(e -> e.details().get("outcome"))
                        .toList());
        assertTrue(job.timeline().stream().noneMatch(e -> e.event().equals("decision")), "no budget was spent");
        assertTrue(job.said().contains("slurmctld has not heard from node2 since it started"), job.said());
    }

    @Test
    void aStepThatCannotBeStartedTimeAfterTimeEndsWithSrunsStatus() throws Exception {
        Scripted[] attempts = new Scripted[10];
        for (int i = 0; i < attempts.length; i++) {
            attempts[i] = Scripted.exits(1)
                    .stderr("srun: error: Unable to create step for job 42:"
                            + " Unable to contact slurm controller (connect failure)");
        }
        ScriptedSrun srun = new ScriptedSrun(attempts);

        assertEquals(1, job.run(srun));

        assertEquals(6, srun.starts().size(), "the first and five more, each after slurmctld answered");
    }

    @Test
    void anApplicationFailureIsRetriedInPlaceWithinItsBudget() throws Exception {
        job.with(SupervisorSettings.MAX_APP_RETRIES, "1");
        ScriptedSrun srun = new ScriptedSrun(Scripted.exits(1), Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(2, srun.starts().size());
        assertEquals("2", srun.starts().get(1).environment().get(StepSupervisor.ATTEMPT));
        assertFalse(srun.starts().get(1).environment().containsKey("NODE_LIST"), "no repair, no new node list");
        EventHistory.Event decision = only(job.timeline(), "decision");
        assertEquals("RERUN_IN_PLACE", decision.details().get("level"));
        assertEquals("APPLICATION_FAILURE", decision.details().get("fault"));
        assertTrue(job.said().contains("re-running in place"), job.said());
        assertTrue(job.said().contains("step succeeded on attempt 2"), job.said());
    }

    @Test
    void theTimelineSaysWhatTheGoodputNeedsEvenOfAShortAttempt() throws Exception {
        job.with(SupervisorSettings.MAX_APP_RETRIES, "1");
        // Each ends well before the rules' first tick (srun's own output is read to its end before it is said to end).
        ScriptedSrun srun = new ScriptedSrun(
                Scripted.exitsAfter(Duration.ofMillis(50), 1).printing("0: AUTORESUME_HEARTBEAT"),
                Scripted.exitsAfter(Duration.ofMillis(50), 0).printing("0: AUTORESUME_HEARTBEAT"));
        AutoresumeConfig config = new AutoresumeConfig(
                org.slurmautoresume.supervisor.policy.RestartPolicy.DEFAULT,
                List.of(),
                Optional.empty(),
                Optional.of(org.slurmautoresume.supervisor.rules.Heartbeat.DEFAULTS));

        assertEquals(0, job.run(srun, Optional.of(config)), job.said());

        List<String> words = job.timeline().stream()
                .filter(e -> List.of("launch", "progress", "attempt-ended").contains(e.event()))
                .map(e -> e.event() + "/" + e.attempt())
                .toList();
        // Each attempt's first beat is said before its end, however soon the attempt ended.
        assertEquals(
                List.of("launch/1", "progress/1", "attempt-ended/1", "launch/2", "progress/2", "attempt-ended/2"),
                words);
        for (EventHistory.Event e : job.timeline()) {
            if (e.event().equals("launch")) {
                assertEquals("heartbeat", e.details().get("progressBy"), e.toString());
            }
            if (e.event().equals("progress")) {
                assertEquals("heartbeat", e.details().get("source"), e.toString());
            }
            if (e.event().equals("attempt-ended")) {
                assertFalse(e.details().containsKey("checkpointAt"), "no checkpoint rule, no checkpoint: " + e);
            }
        }
        org.slurmautoresume.supervisor.step.record.Goodput goodput =
                org.slurmautoresume.supervisor.step.record.Goodput.of(
                        job.timeline(),
                        job.timeline().get(job.timeline().size() - 1).at(),
                        true);
        assertEquals(1, goodput.faults());
    }

    @Test
    void anApplicationFailurePastItsBudgetEndsWithTheStepsStatus() throws Exception {
        job.with(SupervisorSettings.MAX_APP_RETRIES, "1");
        ScriptedSrun srun = new ScriptedSrun(Scripted.exits(3), Scripted.exits(3));

        assertEquals(3, job.run(srun));

        assertEquals(2, srun.starts().size());
        assertEquals("3", only(job.timeline(), "give-up").details().get("status"));
        assertTrue(job.slurm.ran("requeue").isEmpty());
    }

    @Test
    void aSpentBudgetRequeuesTheJobWhenAskedTo() throws Exception {
        job.with(SupervisorSettings.ON_EXHAUSTED, "requeue");
        ScriptedSrun srun = new ScriptedSrun(Scripted.exits(2));

        assertEquals(2, job.run(srun));

        assertEquals(1, srun.starts().size());
        assertEquals(List.of(List.of("scontrol", "requeue", FakeSlurm.JOB)), job.slurm.ran("requeue"));
        only(job.timeline(), "requeue");
        assertTrue(
                job.said().contains("requeueing the whole job (" + SupervisorSettings.ON_EXHAUSTED + "=requeue)"),
                job.said());
    }

    @Test
    void aCancelledStepIsNeverRerun() throws Exception {
        job.with(SupervisorSettings.MAX_APP_RETRIES, "5");
        ScriptedSrun srun = new ScriptedSrun(Scripted.exits(143).onStart(running -> job.slurm.jobState("CANCELLED")));

        assertEquals(143, job.run(srun));

        assertEquals(1, srun.starts().size());
        assertEquals(
                "CANCELLED", only(job.timeline(), "attempt-ended").details().get("outcome"));
        assertTrue(job.timeline().stream().noneMatch(e -> e.event().equals("decision")));
    }

    @Test
    void aStepAtItsTimeLimitIsNeverRerun() throws Exception {
        job.with(SupervisorSettings.MAX_APP_RETRIES, "5");
        ScriptedSrun srun = new ScriptedSrun(
                Scripted.exits(1)
                        .stderr(
                                "slurmstepd: error: *** STEP 42.0 ON node1 CANCELLED AT 2026-11-22T04:15:22 DUE TO TIME LIMIT ***"));

        assertEquals(1, job.run(srun));

        assertEquals(1, srun.starts().size());
        assertEquals(
                "TIME_LIMIT", only(job.timeline(), "attempt-ended").details().get("outcome"));
        assertTrue(job.said().contains("time limit: Slurm says"), job.said());
    }

    @Test
    void aNodeFaultReplacesTheNodeAndRerunsWithTheNewNodeList() throws Exception {
        job.with("AUTORESUME_SPARE_NODES", "node3");
        ScriptedSrun srun = new ScriptedSrun(
                Scripted.exits(1)
                        .stderr("srun: error: Node failure on node2")
                        .onStart(running -> job.slurm.nodeState("node2", "DOWN+NOT_RESPONDING")),
                Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(1, job.agent.requests("mark").size());
        assertEquals(
                "node2", job.agent.requests("mark").get(0).path("nodes").get(0).asText());
        assertEquals("node[1,3]", job.slurm.jobNodeList());
        Map<String, String> second = srun.starts().get(1).environment();
        assertEquals("2", second.get(StepSupervisor.ATTEMPT));
        assertEquals("node[1,3]", second.get("NODE_LIST"));
        assertEquals("node[1,3]", second.get("SLURM_JOB_NODELIST"));
        assertEquals("2", second.get("SLURM_NNODES"));
        assertEquals("node1", second.get("MASTER_NODE"));
        assertEquals("10.0.0.1", second.get("MASTER_ADDR"));
        EventHistory.Event replacement = only(job.timeline(), "replacement");
        assertEquals("node2", replacement.details().get("faultyNodes"));
        assertEquals("node[1,3]", replacement.details().get("nodeList"));
        assertEquals(
                "REPLACE_NODES_AND_RERUN",
                only(job.timeline(), "decision").details().get("level"));
        // No watch found it while srun ran: the detection is the attempt's end, naming the node.
        EventHistory.Event detection = only(job.timeline(), "detection");
        assertEquals("attempt-end", detection.details().get("source"));
        assertEquals("node2", detection.details().get("nodes"));
    }

    @Test
    void theFirstAttemptIsToldTheJobsNodesAndMasterAsAReRunWouldBe() throws Exception {
        job.with("SLURM_JOB_NODELIST", "node[1-2]")
                .with("SLURM_JOB_NUM_NODES", "2")
                .with("SLURMD_NODENAME", "node1");
        ScriptedSrun srun = new ScriptedSrun(Scripted.exits(0));

        assertEquals(0, job.run(srun));

        Map<String, String> first = srun.starts().get(0).environment();
        assertEquals(
                List.of("node[1-2]", "node1", "10.0.0.1", "2"),
                List.of(
                        first.get("NODE_LIST"),
                        first.get("MASTER_NODE"),
                        first.get("MASTER_ADDR"),
                        first.get("NNODES")));
        assertEquals(
                List.of(List.of("scontrol", "-o", "show", "node", "node[1-2]")),
                job.slurm.ran("node[1-2]"),
                "one read of the job's nodes: MASTER_ADDR from the record re-runs take it from, and the records"
                        + " a step with in-job spares is probed with from its start");
    }

    @Test
    void aReRunInPlaceKeepsTheFirstAttemptsNodes() throws Exception {
        job.with("SLURM_JOB_NODELIST", "node[1-2]")
                .with("SLURM_JOB_NUM_NODES", "2")
                .with(SupervisorSettings.MAX_APP_RETRIES, "1");
        ScriptedSrun srun = new ScriptedSrun(Scripted.exits(3), Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals("node[1-2]", srun.starts().get(1).environment().get("NODE_LIST"));
        assertEquals("10.0.0.1", srun.starts().get(1).environment().get("MASTER_ADDR"));
    }

    @Test
    void withoutAnAllocationsNodeListTheFirstAttemptGetsNoNodeVariables() throws Exception {
        job.with("NODE_LIST", "set-by-the-user");
        ScriptedSrun srun = new ScriptedSrun(Scripted.exits(0));

        assertEquals(0, job.run(srun));

        Map<String, String> first = srun.starts().get(0).environment();
        assertEquals("set-by-the-user", first.get("NODE_LIST"));
        assertFalse(first.containsKey("MASTER_ADDR"));
        assertTrue(job.slurm.ran("node").isEmpty(), "nothing read before the launch");
    }

    @Test
    void aNodeFaultWithoutReplacementRequeuesTheJobWithTheNodeMarkedFirst() throws Exception {
        ScriptedSrun srun = new ScriptedSrun(
                Scripted.exits(1).onStart(running -> job.slurm.nodeState("node2", "DOWN+NOT_RESPONDING")));

        assertEquals(1, job.run(srun));

        assertEquals(1, srun.starts().size());
        assertEquals(
                List.of("fail", "down"),
                job.agent.requests("mark").stream()
                        .map(r -> r.path("state").asText())
                        .toList(),
                "FAIL so the requeued job avoids it, then DOWN so Slurm lets go of the dead node at once");
        assertEquals(List.of(List.of("scontrol", "requeue", FakeSlurm.JOB)), job.slurm.ran("requeue"));
        EventHistory.Event requeue = only(job.timeline(), "requeue");
        assertEquals(
                List.of("node-fault", "node2", "false"),
                List.of(
                        requeue.details().get("path"),
                        requeue.details().get("faultyNodes"),
                        requeue.details().get("expedited")));
        assertTrue(
                job.timelineWords().stream().noneMatch("give-up"::equals),
                job.timelineWords().toString());
        assertTrue(job.said().contains("no replacement is configured"), job.said());
    }

    @Test
    @org.junit.jupiter.api.Timeout(30) // without the probes the attempt would run until stopped
    void aSilentSlurmdWithoutAnyRepairIsMarkedAndTheJobRequeuedAtItsFullSize() throws Exception {
        job.silentSlurmd.add("node2");
        ScriptedSrun srun = new ScriptedSrun(
                Scripted.runsUntilStopped().onStart(running -> job.slurm.step("0", running.pid(), "node[1-2]")));

        assertEquals(137, job.run(srun));

        assertEquals(1, srun.starts().size());
        assertEquals(
                "node2", job.agent.requests("mark").get(0).path("nodes").get(0).asText());
        assertEquals(
                List.of("fail", "down"),
                job.agent.requests("mark").stream()
                        .map(r -> r.path("state").asText())
                        .toList(),
                "FAIL once, by the watch, then DOWN before the requeue");
        assertEquals(List.of(List.of("scancel", "42.0")), job.slurm.ran("scancel"));
        assertEquals("node[1-2]", job.slurm.jobNodeList(), "a job about to be requeued is not shrunk");
        assertEquals(List.of(List.of("scontrol", "requeue", FakeSlurm.JOB)), job.slurm.ran("requeue"));
        assertEquals("node2", only(job.timeline(), "requeue").details().get("faultyNodes"));
    }

    @Test
    void aNodeFaultWithoutReplacementIsNotRerunNorRequeuedWhenTheFallbackIsOff() throws Exception {
        job.with(SupervisorSettings.NODE_FAULT_FALLBACK, "exit");
        ScriptedSrun srun = new ScriptedSrun(
                Scripted.exits(1).onStart(running -> job.slurm.nodeState("node2", "DOWN+NOT_RESPONDING")));

        assertEquals(1, job.run(srun));

        assertEquals(1, srun.starts().size());
        assertTrue(job.agent.requests("mark").isEmpty());
        assertTrue(job.slurm.ran("requeue").isEmpty());
        only(job.timeline(), "give-up");
        assertTrue(job.said().contains("not requeueing the job: requeueing after a node fault is off"), job.said());
    }

    @Test
    void aNodeFaultInAJobThatIsNotRequeueableEndsAsBeforeAndSaysWhy() throws Exception {
        job.slurm.requeueable(false);
        ScriptedSrun srun = new ScriptedSrun(
                Scripted.exits(1).onStart(running -> job.slurm.nodeState("node2", "DOWN+NOT_RESPONDING")));

        assertEquals(1, job.run(srun));

        assertTrue(job.slurm.ran("requeue").isEmpty());
        only(job.timeline(), "give-up");
        // Said once when it ends, besides the recovery paths said at the start.
        assertEquals(
                List.of("recovery paths:", "not requeueing"),
                job.said()
                        .lines()
                        .filter(l -> l.contains("is not requeueable"))
                        .map(l -> l.contains("recovery paths:") ? "recovery paths:" : "not requeueing")
                        .toList(),
                job.said());
    }

    @Test
    void aRuleViolationDumpsThenRetries() throws Exception {
        RestartPolicy policy = new RestartPolicy(
                2,
                OptionalInt.empty(),
                OptionalLong.empty(),
                0,
                List.of(Strategy.DUMP, Strategy.RETRY, Strategy.EXIT),
                new DumpSettings(SignalNumber.USR1, Duration.ofSeconds(5)));
        LogRule loss = LogRule.builder("Loss", ".*loss (\\S+).*")
                .metric(MetricOperator.GT, 2.0)
                .build();
        ScriptedSrun srun =
                new ScriptedSrun(Scripted.runsUntilStopped().printing("iter 7 loss 9.5"), Scripted.exits(0));

        assertEquals(0, job.run(srun, Optional.of(new AutoresumeConfig(policy, List.of(loss)))));

        assertEquals(List.of(SignalNumber.USR1), srun.starts().get(0).srun().signals());
        List<String> words = job.timelineWords();
        assertTrue(
                words.indexOf("detection") < words.indexOf("dump") && words.indexOf("dump") < words.indexOf("decision"),
                words.toString());
        EventHistory.Event decision = only(job.timeline(), "decision");
        assertEquals("RULE_VIOLATION", decision.details().get("fault"));
        assertEquals("RERUN_IN_PLACE", decision.details().get("level"));
        assertEquals(2, srun.starts().size());
    }

    /**
     * A hang a rule ended is diagnosed before the rule's decision: node2's agent, asked on its
     * fresh-check port, marks node2 and says so, and the step moves to the spare as after any
     * node fault instead of being re-run in place on node2.
     */
    @Test
    void aHangARuleEndedIsDiagnosedAndMovesToTheSpareWhenANodeIsFoundBad() throws Exception {
        job.slurm.onLoopback();
        job.with("AUTORESUME_SPARE_NODES", "node3");
        // Node N's slurmd port is 1700N: liveness ports LIVE+N, fresh-check ports CHECK+N.
        List<java.net.ServerSocket> agents = new java.util.ArrayList<>();
        int live = freeRange(agents, 2);
        int check = freeRange(agents, 2);
        try {
            answer(agents.get(0), "node1 ok", () -> {});
            answer(agents.get(1), "node2 ok", () -> {});
            answer(agents.get(2), "node1 ok", () -> {});
            answer(agents.get(3), "node2 unhealthy", () -> job.slurm.nodeState("node2", "ALLOCATED+DOWN"));
            int offset = 17000 - 6818;
            job.probedBy(new org.slurmautoresume.slurm.probe.LivenessProber(
                    Duration.ofSeconds(1), live - offset, check - offset, true, node -> Optional.empty()));
            RestartPolicy policy = new RestartPolicy(
                    2,
                    OptionalInt.empty(),
                    OptionalLong.empty(),
                    0,
                    List.of(Strategy.RETRY, Strategy.RECOVER, Strategy.EXIT),
                    new DumpSettings(SignalNumber.USR1, Duration.ofSeconds(5)));
            LogRule loss = LogRule.builder("Loss", ".*loss (\\S+).*")
                    .metric(MetricOperator.GT, 2.0)
                    .build();
            ScriptedSrun srun =
                    new ScriptedSrun(Scripted.runsUntilStopped().printing("iter 7 loss 9.5"), Scripted.exits(0));

            assertEquals(0, job.run(srun, Optional.of(new AutoresumeConfig(policy, List.of(loss)))), job.said());

            EventHistory.Event detection = job.timeline().stream()
                    .filter(e -> e.event().equals("detection")
                            && "agent-verdict".equals(e.details().get("source")))
                    .findFirst()
                    .orElseThrow();
            assertEquals("node2", detection.details().get("nodes"));
            // From the attempt's end to the verdict: what the detection-latency histogram counts.
            assertTrue(
                    detection.latencyMs().isPresent() && detection.latencyMs().getAsLong() >= 0, detection.toString());
            EventHistory.Event decision = only(job.timeline(), "decision");
            assertEquals(
                    List.of("NODE_FAULT", "REPLACE_NODES_AND_RERUN"),
                    List.of(decision.details().get("fault"), decision.details().get("level")),
                    job.timeline().toString());
            assertEquals("node[1,3]", srun.starts().get(1).environment().get("NODE_LIST"));
        } finally {
            for (java.net.ServerSocket agent : agents) {
                agent.close();
            }
        }
    }

    /** Binds {@code count} consecutive free loopback ports, adds them to {@code into}; returns the first minus 1 (node N's is that + N). */
    private static int freeRange(List<java.net.ServerSocket> into, int count) throws IOException {
        for (int first = 30000 + (int) (ProcessHandle.current().pid() % 1000) * 20; first < 60000; first += count) {
            List<java.net.ServerSocket> bound = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < count; i++) {
                    bound.add(new java.net.ServerSocket(first + i, 50, java.net.InetAddress.getLoopbackAddress()));
                }
                into.addAll(bound);
                return first - 1;
            } catch (IOException taken) {
                for (java.net.ServerSocket socket : bound) {
                    socket.close();
                }
            }
        }
        throw new IOException("no free loopback port range");
    }

    /** An agent's port: each connection greeted with {@code greeting} after {@code first} ran. */
    private static void answer(java.net.ServerSocket server, String greeting, Runnable first) {
        Thread thread = new Thread(() -> {
            while (!server.isClosed()) {
                try (java.net.Socket peer = server.accept();
                        java.io.OutputStream out = peer.getOutputStream()) {
                    first.run();
                    out.write((org.slurmautoresume.slurm.probe.LivenessProber.GREETING + greeting + "\n")
                            .getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    return;
                }
            }
        });
        thread.setDaemon(true);
        thread.start();
    }

    @Test
    void aRetryIsAnnouncedUnderTheIdOfTheStepItRetries() throws Exception {
        job.with(SupervisorSettings.MAX_APP_RETRIES, "1");
        ScriptedSrun srun = new ScriptedSrun(
                Scripted.exitsAfter(Duration.ofMillis(1500), 1)
                        .onStart(running -> job.slurm.step("3", running.pid(), "node[1-2]")),
                Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertTrue(job.said().contains("JobID=42 StepID=3: retrying step, attempt 2"), job.said());
        assertFalse(
                job.said().contains("StepID=3: step succeeded on attempt 2"),
                "the second attempt is another step, unknown here: " + job.said());
        assertEquals("3", only(job.timeline(), "decision").stepId());
    }

    public static EventHistory.Event only(List<EventHistory.Event> events, String word) {
        List<EventHistory.Event> found =
                events.stream().filter(e -> e.event().equals(word)).toList();
        assertEquals(1, found.size(), word + " in " + events);
        return found.get(0);
    }
}
