package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.nodeops.health.CheckResult;
import org.slurmautoresume.nodeops.health.Finding;
import org.slurmautoresume.nodeops.health.HealthAction;
import org.slurmautoresume.nodeops.health.HealthCheck;
import org.slurmautoresume.nodeops.health.HealthContext;
import org.slurmautoresume.nodeops.health.HealthSettings;
import org.slurmautoresume.nodeops.health.ToolLocator;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.exec.CommandRunner;

/** The agent's GPU checks at an interval: what a round marks, when, and what it only reports. */
class NodeCheckWatchTest {

    private static final Duration EVERY = Duration.ofSeconds(60);
    private static final Duration CONFIRM = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    private final FakeSlurm slurm =
            new FakeSlurm().node("node1", "show-node-idle.txt").node("node2", "show-node-down-not-responding.txt");
    private final AgentMetrics metrics = new AgentMetrics();
    private final NodeVerdict verdict = new NodeVerdict();
    private final ScriptedCheck check = new ScriptedCheck();

    /** A check that answers each round with the next scripted result (the last one repeats). */
    private static final class ScriptedCheck implements HealthCheck {
        private final Deque<CheckResult> results = new ArrayDeque<>();
        private final java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();

        ScriptedCheck then(CheckResult result) {
            results.add(result);
            return this;
        }

        @Override
        public String name() {
            return "gpu";
        }

        @Override
        public String description() {
            return "scripted";
        }

        @Override
        public CheckResult run(HealthContext context) {
            runs.incrementAndGet();
            return results.size() > 1 ? results.poll() : results.peek();
        }
    }

    private static CheckResult passed() {
        return CheckResult.of("gpu", List.of(Finding.note("4 GPU(s) found, 4 expected")), "4 GPU(s) healthy");
    }

    private static CheckResult fault(HealthAction action, String text) {
        return CheckResult.of("gpu", List.of(Finding.fault(action, text)), "");
    }

    private NodeCheckWatch watch(String node) throws IOException {
        return watch(NodeCheckWatch.Kind.GPU, node);
    }

    private NodeCheckWatch watch(NodeCheckWatch.Kind kind, String node) throws IOException {
        HealthContext context = new HealthContext(
                mock(CommandRunner.class), new ToolLocator(""), HealthSettings.defaults(), OptionalInt::empty);
        OwnNodeMarker marker = new OwnNodeMarker(
                node, new SlurmClient(slurm.runner), new SlurmControl(slurm.runner), metrics, verdict);
        return new NodeCheckWatch(
                kind, List.of(check), context, marker, new AuditLog(dir.resolve("audit.log")), metrics, EVERY, CONFIRM);
    }

    private List<String> audit() throws IOException {
        Path file = dir.resolve("audit.log");
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    @Test
    void aFaultFoundTwiceMarksTheNodeWithItsActionAndEvidence() throws IOException {
        check.then(fault(HealthAction.REBOOT, "GPU 1 (00000000:5E:00.0): 2 uncorrected ECC errors"));
        NodeCheckWatch watch = watch("node1");
        assertEquals(CONFIRM, watch.round(), "a first sighting is checked again soon");
        assertEquals(List.of(), slurm.updates, "one round is not enough to take a node away");
        assertEquals(EVERY, watch.round());
        assertEquals(
                List.of(List.of(
                        "scontrol",
                        "update",
                        "nodename=node1",
                        "state=fail",
                        "reason=Action:Reboot gpu check: GPU 1 (00000000:5E:00.0): 2 uncorrected ECC errors,"
                                + " seen by autoresume agent")),
                slurm.updates);
        assertTrue(verdict.unhealthy(), "the liveness port says so");
        assertEquals(1, audit().size());
        assertTrue(audit().get(0).contains("marked fail: Action:Reboot"), audit().toString());
    }

    @Test
    void aRoundAskedForOutOfTurnConfirmsItsFaultAtOnceAndMarksTheNode() throws Exception {
        check.then(
                fault(HealthAction.REBOOT, "DCGM health Failure: -> NVLink system Failure Detected XID 74 for GPU 0"));
        try (NodeCheckWatch watch = watch("node1")) {
            long asked = System.nanoTime();
            watch.checkNow().get(10, java.util.concurrent.TimeUnit.SECONDS);
            long tookMs = (System.nanoTime() - asked) / 1_000_000;
            assertEquals(2, check.runs.get(), "found, then confirmed");
            assertTrue(
                    tookMs >= NodeCheckWatch.CONFIRM_ON_REQUEST.toMillis() && tookMs < CONFIRM.toMillis(),
                    "confirmed after the short wait, not the watch's own " + CONFIRM + ": " + tookMs + " ms");
            assertEquals(1, slurm.updates.size(), slurm.updates.toString());
            assertTrue(
                    slurm.updates.get(0).get(4).startsWith("reason=Action:Reboot gpu check: DCGM health Failure"),
                    slurm.updates.toString());
            assertTrue(verdict.unhealthy(), "what the fresh-check port then says");
        }
    }

    @Test
    void asksCloseTogetherShareOneRound() throws Exception {
        check.then(passed());
        try (NodeCheckWatch watch = watch("node1")) {
            java.util.concurrent.CompletableFuture<Void> first = watch.checkNow();
            java.util.concurrent.CompletableFuture<Void> second = watch.checkNow();
            first.get(10, java.util.concurrent.TimeUnit.SECONDS);
            java.util.concurrent.CompletableFuture<Void> third = watch.checkNow();
            assertTrue(first == second && second == third, "one round for asks within " + NodeCheckWatch.ASK_GAP);
            assertEquals(1, check.runs.get(), "the checks ran once however many asked");
            assertEquals(List.of(), slurm.updates);
        }
    }

    @Test
    void aClosedWatchAnswersAtOnceAndChecksNothing() throws Exception {
        check.then(fault(HealthAction.REPLACE, "found 3 GPU(s), expected 4"));
        NodeCheckWatch watch = watch("node1");
        watch.close();
        watch.checkNow().get(1, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(0, check.runs.get());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void aFaultThatIsGoneAtTheSecondRunMarksNothing() throws IOException {
        check.then(fault(HealthAction.REBOOT, "nvidia-smi failed: timed out after 30 s"))
                .then(passed());
        NodeCheckWatch watch = watch("node1");
        watch.round();
        assertEquals(EVERY, watch.round());
        watch.round();
        assertEquals(List.of(), slurm.updates);
        assertFalse(verdict.unhealthy());
    }

    @Test
    void aLostGpuAsksForAReplacementAndIsMarkedOnce() throws IOException {
        check.then(fault(HealthAction.REPLACE, "found 3 GPU(s), expected 4"));
        NodeCheckWatch watch = watch("node1");
        watch.round();
        watch.round();
        assertEquals(EVERY, watch.round(), "a finding already acted on is not confirmed again");
        watch.round();
        assertEquals(1, slurm.updates.size(), slurm.updates.toString());
        assertTrue(slurm.updates.get(0).get(4).startsWith("reason=Action:Replace gpu check: found 3 GPU(s)"));
        assertEquals(1, audit().size(), "an unchanged finding is audited once");
    }

    @Test
    void aFaultNeitherARebootNorAReplacementFixesIsReportedNotMarked() throws IOException {
        check.then(fault(HealthAction.NONE, "unreadable nvidia-smi output"));
        NodeCheckWatch watch = watch("node1");
        assertEquals(EVERY, watch.round(), "nothing to confirm");
        watch.round();
        assertEquals(List.of(), slurm.updates);
        assertEquals(1, audit().size(), audit().toString());
        assertTrue(audit().get(0).contains("not marked"), audit().toString());
    }

    @Test
    void aNodeAlreadyOutOfServiceKeepsItsReason() throws IOException {
        check.then(fault(HealthAction.REBOOT, "GPU 0: page retirement pending"));
        NodeCheckWatch watch = watch("node2");
        for (int i = 0; i < 4; i++) {
            watch.round();
        }
        assertEquals(List.of(), slurm.updates);
        assertEquals(1, audit().size());
        assertTrue(audit().get(0).contains("not marked"), audit().toString());
    }

    @Test
    void aFailedCommandIsNamedByItsProgram() {
        assertEquals(
                "gpu check: nvidia-smi failed: nvidia-smi exited with status 255: Unable to determine the device"
                        + " handle",
                NodeCheckWatch.detail(List.of(fault(
                        HealthAction.REBOOT,
                        "nvidia-smi failed: `/var/tmp/c/gpu/"
                                + "node1/bin/nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader,nounits` exited with status"
                                + " 255: Unable to determine the device handle"))));
    }

    @Test
    void theReasonIsOneBoundedLine() {
        String detail = NodeCheckWatch.detail(
                List.of(fault(HealthAction.REBOOT, "nvidia-smi failed:\n\"x\"\t" + "y".repeat(500))));
        assertFalse(detail.contains("\n") || detail.contains("\"") || detail.contains("\t"), detail);
        assertEquals(NodeCheckWatch.MAX_DETAIL, detail.length());
    }

    /** The slurmd watch is the same watch: its findings are counted and audited under its own names. */
    @Test
    void theSlurmdWatchMarksForARebootAndCountsAndAuditsAsItsOwn() throws IOException {
        check.then(CheckResult.of(
                "slurmd",
                List.of(Finding.fault(
                        HealthAction.REBOOT, "slurmd of node1 did not answer `scontrol show slurmd` within 15 s")),
                ""));
        NodeCheckWatch watch = watch(NodeCheckWatch.Kind.SLURMD, "node1");
        watch.round();
        watch.round();
        assertEquals(
                List.of(List.of(
                        "scontrol",
                        "update",
                        "nodename=node1",
                        "state=fail",
                        "reason=Action:Reboot slurmd check: slurmd of node1 did not answer scontrol within 15 s,"
                                + " seen by autoresume agent")),
                slurm.updates);
        assertTrue(
                audit().get(0).startsWith("{\"time\"") && audit().get(0).contains("\"slurmdCheck\":{"),
                audit().toString());
        List<String> counted = metrics.registry().scrape().stream()
                .filter(m -> m.getMetadata().getName().startsWith("autoresume_agent_")
                        && m.getMetadata().getName().endsWith("_checks"))
                .flatMap(
                        m -> m.getDataPoints().stream().map(d -> m.getMetadata().getName() + "/" + d.getLabels()))
                .toList();
        assertEquals(1, counted.size(), counted.toString());
        assertTrue(
                counted.get(0).startsWith("autoresume_agent_slurmd_checks/")
                        && counted.get(0).contains("failed"),
                counted.toString());
    }
}
