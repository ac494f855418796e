package org.slurmautoresume.supervisor.step.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.Step;
import org.slurmautoresume.slurm.parse.NodeParser;
import org.slurmautoresume.slurm.probe.NodeProber;
import org.slurmautoresume.supervisor.step.AttemptLoopTest;
import org.slurmautoresume.supervisor.step.FakeSlurm;
import org.slurmautoresume.supervisor.step.ScriptedSrun;
import org.slurmautoresume.supervisor.step.ScriptedSrun.Scripted;
import org.slurmautoresume.supervisor.step.SupervisedRun;
import org.slurmautoresume.supervisor.step.launch.Srun;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobTimeline;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;

/** The step watch alone, and as the supervisor uses it when a node's slurmd falls silent. */
class StepWatchTest {

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

    /** What a step watch handed on, and on which threads. */
    private static final class Findings implements StepWatch.SlurmdFindings {
        final List<String> calls = new ArrayList<>();

        @Override
        public synchronized void watching(Step step) {
            calls.add("watching " + step.fullId() + " on "
                    + Thread.currentThread().getName());
        }

        @Override
        public synchronized void silent(
                Step step, Srun srun, List<String> suspects, List<String> gone, java.time.Instant found) {
            calls.add("silent " + suspects + " on " + Thread.currentThread().getName());
            srun.kill();
        }

        @Override
        public synchronized void markedOut(Step step, Srun srun, List<Node> marked) {
            calls.add("marked " + marked.stream().map(Node::name).toList() + " on "
                    + Thread.currentThread().getName());
            srun.kill();
        }

        synchronized List<String> calls() {
            return List.copyOf(calls);
        }
    }

    private StepWatch watch(
            Optional<StepWatch.SlurmdFindings> findings, NodeProber prober, SupervisorLog log, JobTimeline timeline) {
        return new StepWatch(
                job.slurm.client(),
                Optional.of(JobId.parse(FakeSlurm.JOB)),
                log,
                timeline,
                () -> prober,
                findings,
                null,
                Optional.empty());
    }

    @Test
    void theLookupFindsTheStepAndTheProbesHandOnSilentNodesFromTheirOwnThread() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        SupervisorLog log = new SupervisorLog(new PrintStream(err, true, StandardCharsets.UTF_8), FakeSlurm.JOB);
        JobTimeline timeline = new JobTimeline(Optional.empty(), Optional.empty());
        Findings findings = new Findings();
        NodeProber node2Silent = node -> node.name().equals("node2") ? Optional.of("refused") : Optional.empty();
        StepWatch watch = watch(Optional.of(findings), node2Silent, log, timeline);
        Srun srun = new ScriptedSrun(
                        Scripted.runsUntilStopped().onStart(running -> job.slurm.step("5", running.pid(), "node[1-2]")))
                .start(List.of("srun"), Map.of(), null);

        watch.follow(srun);
        assertTrue(srun.awaitExit(Duration.ofSeconds(20)), "the findings' handler ends srun");
        watch.attemptEnded(srun.waitFor());

        assertEquals(Optional.of("5"), timeline.stepId());
        assertEquals(Optional.of("5"), watch.step().map(Step::stepId));
        assertEquals(List.of("node1", "node2"), watch.hosts());
        assertEquals(List.of("watching 42.5 on slurmd-watch", "silent [node2] on slurmd-watch"), findings.calls());
        log.say("after");
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("StepID=5: after"));
    }

    /**
     * The attempt's nodes known before srun starts (in-job spares) are probed
     * from its start, before slurmctld names the step; a node found silent meanwhile is handed on
     * once the lookup has the step.
     */
    @Test
    void knownNodesAreProbedBeforeTheStepIsNamedAndHandedOnOnceItIs() throws Exception {
        JobTimeline timeline = new JobTimeline(Optional.empty(), Optional.empty());
        Findings findings = new Findings();
        List<Long> probedAt = new ArrayList<>();
        NodeProber node2Silent = node -> {
            synchronized (probedAt) {
                probedAt.add(System.nanoTime());
            }
            return node.name().equals("node2") ? Optional.of("refused") : Optional.empty();
        };
        List<Node> known = List.of("node1", "node2").stream()
                .map(name -> new NodeParser()
                        .parse("NodeName=" + name + " NodeAddr=10.0.0." + name.substring(4) + " Port=1700"
                                + name.substring(4) + " State=ALLOCATED"))
                .toList();
        StepWatch watch = new StepWatch(
                job.slurm.client(),
                Optional.of(JobId.parse(FakeSlurm.JOB)),
                new SupervisorLog(
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), FakeSlurm.JOB),
                timeline,
                () -> node2Silent,
                Optional.of(findings),
                null,
                Optional.of(known));
        Srun srun = new ScriptedSrun(Scripted.runsUntilStopped()).start(List.of("srun"), Map.of(), null);

        watch.follow(srun);
        Thread.sleep(2_600); // slurmctld does not name the step meanwhile (as when it is away); the probes go on
        long named = System.nanoTime();
        job.slurm.step("7", srun.pid(), "node[1-2]");
        assertTrue(srun.awaitExit(Duration.ofSeconds(20)), "the findings' handler ends srun");
        watch.attemptEnded(srun.waitFor());

        synchronized (probedAt) {
            assertTrue(probedAt.get(0) < named, "the first probe came before the step was named");
        }
        assertEquals(
                List.of("silent [node2] on slurmd-watch", "watching 42.7 on step-lookup"),
                findings.calls().stream().sorted().toList());
    }

    @Test
    void withoutRecoveryTheLookupStartsNoProbes() throws Exception {
        List<String> probed = new ArrayList<>();
        NodeProber recording = node -> {
            synchronized (probed) {
                probed.add(node.name());
            }
            return Optional.empty();
        };
        JobTimeline timeline = new JobTimeline(Optional.empty(), Optional.empty());
        StepWatch watch = watch(
                Optional.empty(),
                recording,
                new SupervisorLog(
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), FakeSlurm.JOB),
                timeline);
        Srun srun = new ScriptedSrun(Scripted.exitsAfter(Duration.ofMillis(1500), 0)
                        .onStart(running -> job.slurm.step("6", running.pid(), "node[1-2]")))
                .start(List.of("srun"), Map.of(), null);

        watch.follow(srun);
        watch.attemptEnded(srun.waitFor());

        assertEquals(Optional.of("6"), timeline.stepId(), "found while srun ran");
        synchronized (probed) {
            assertTrue(probed.isEmpty(), probed.toString());
        }
    }

    @Test
    void aSilentSlurmdIsMarkedCancelledAndDroppedFromTheProbesThreadNotTheLookup() throws Exception {
        job.with("AUTORESUME_SPARE_NODES", "node3");
        job.silentSlurmd.add("node2");
        ScriptedSrun srun = new ScriptedSrun(
                Scripted.runsUntilStopped().onStart(running -> job.slurm.step("0", running.pid(), "node[1-2]")),
                Scripted.exits(0));

        assertEquals(0, job.run(srun));

        List<FakeSlurm.Ran> ran = job.slurm.ran();
        assertEquals(List.of("slurmd-watch"), threadsOf(ran, List.of("scancel", "42.0")));
        assertEquals(
                List.of("slurmd-watch"),
                threadsOf(
                        ran, List.of("env", "-u", "SLURM_JOBID", "scontrol", "update", "jobid=42", "NodeList=node1")));
        assertTrue(
                ran.stream()
                        .filter(r -> r.thread().equals("step-lookup"))
                        .allMatch(r -> r.argv().equals(List.of("scontrol", "-o", "show", "step", "42"))),
                ran.toString());
        assertEquals(1, job.agent.requests("watch").size());
        assertEquals(
                "node2", job.agent.requests("mark").get(0).path("nodes").get(0).asText());
        assertEquals("node[1,3]", srun.starts().get(1).environment().get("NODE_LIST"));
        EventHistory.Event detection = AttemptLoopTest.only(job.timeline(), "detection");
        assertEquals("slurmd-probe", detection.details().get("source"));
        assertEquals("0", detection.stepId());
        EventHistory.Event firstEnd = job.timeline().stream()
                .filter(e -> e.event().equals("attempt-ended"))
                .findFirst()
                .orElseThrow();
        assertEquals("NODE_FAULT", firstEnd.details().get("outcome"), "we cancelled it: not a user's cancel");
        assertEquals("137", firstEnd.details().get("status"), "srun did not end by itself and was killed");
        assertFalse(job.said().contains("step cancelled"), job.said());
    }

    private static List<String> threadsOf(List<FakeSlurm.Ran> ran, List<String> argv) {
        return ran.stream()
                .filter(r -> r.argv().equals(argv))
                .map(FakeSlurm.Ran::thread)
                .toList();
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(
            delimiter = ';',
            value = {
                "MIXED+FAIL;Action:Reboot Xid 79 GPU PCI:0000:3b:00 (GPU has fallen off the bus);true",
                "IDLE+DRAIN;Action:Replace;true",
                "DOWN;Not responding;true",
                "MIXED+DRAIN;maintenance at noon;false",
                "MIXED+FAIL;disk check by hand;false",
                "ALLOCATED;;false"
            })
    void aNodeEndsTheStepWhenSlurmHasItOutForAFault(String state, String reason, boolean out) {
        Node node = new org.slurmautoresume.slurm.parse.NodeParser()
                .parse("NodeName=node2 NodeAddr=127.0.0.1 Port=17002" + " State=" + state
                        + (reason == null ? "" : " Reason=" + reason + " [root@2026-11-24T17:00:00]"));
        assertEquals(out, NodeStateRead.outForAFault(node), node.toString());
    }
}
