package org.slurmautoresume.nodeops.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.nodeops.health.FakeTools.Answer;
import org.slurmautoresume.slurm.exec.CommonsExecCommandRunner;

/** The GPU and DCGM checks over fake tools on PATH, run through the real command runner. */
class GpuAndDcgmCheckTest {

    @TempDir
    Path bin;

    FakeTools tools;
    final AtomicInteger slurmAsked = new AtomicInteger();

    @BeforeEach
    void setUp() {
        tools = new FakeTools(bin);
    }

    private HealthContext context(OptionalInt expected, OptionalInt fromSlurm) {
        return new HealthContext(
                new CommonsExecCommandRunner(),
                new ToolLocator(tools.path()),
                HealthSettings.defaults().withExpectedGpus(expected),
                () -> {
                    slurmAsked.incrementAndGet();
                    return fromSlurm;
                });
    }

    private void smi(String gpus, String remaps) {
        tools.tool("nvidia-smi", Answer.out("--query-remapped-rows", remaps, 0), Answer.out("--query-gpu", gpus, 0));
    }

    @Test
    void healthyGpusPassWithTheCountFromSlurm() {
        smi("nvidia-smi/query-gpu-8-healthy.csv", "nvidia-smi/remapped-rows-healthy.csv");
        tools.tool("dmesg", Answer.out("", "kernel-log/dmesg-clean.txt", 0));
        CheckResult result = new GpuCheck().run(context(OptionalInt.empty(), OptionalInt.of(8)));
        assertEquals(HealthStatus.PASSED, result.status(), result.toString());
        assertEquals(1, slurmAsked.get());
        assertTrue(
                result.evidence().contains("8 GPU(s) found, 8 expected"),
                result.evidence().toString());
        assertTrue(
                result.evidence().contains("no Xid errors in dmesg"),
                result.evidence().toString());
        assertEquals(
                List.of("--query-remapped-rows=" + NvidiaSmiParser.REMAP_FIELDS + " --format=csv,noheader,nounits"),
                tools.calls("nvidia-smi").subList(1, 2));
    }

    @Test
    void aMissingGpuIsAReplaceAndEccIsNamed() {
        smi("nvidia-smi/query-gpu-7-ecc.csv", "nvidia-smi/remapped-rows-healthy.csv");
        tools.tool("dmesg", Answer.out("", "kernel-log/dmesg-clean.txt", 0));
        CheckResult result = new GpuCheck().run(context(OptionalInt.of(8), OptionalInt.empty()));
        assertEquals(HealthStatus.FAILED, result.status());
        assertEquals(HealthAction.REPLACE, result.action());
        assertEquals(0, slurmAsked.get(), "an explicit count wins over Slurm's");
        assertEquals("found 7 GPU(s), expected 8 (and 2 more)", result.summary());
        String evidence = String.join("\n", result.evidence());
        assertTrue(evidence.contains("GPU 1 (00000000:2A:00.0): 2 uncorrected ECC errors"), evidence);
        assertTrue(evidence.contains("GPU 2 (00000000:3A:00.0): page retirement pending"), evidence);
    }

    @Test
    void unknownExpectedCountIsNotCompared() {
        smi("nvidia-smi/query-gpu-8-healthy.csv", "nvidia-smi/remapped-rows-healthy.csv");
        CheckResult result = new GpuCheck().run(context(OptionalInt.empty(), OptionalInt.empty()));
        assertEquals(HealthStatus.PASSED, result.status(), result.toString());
        assertTrue(
                result.evidence().get(0).contains("expected count unknown"),
                result.evidence().toString());
        assertTrue(
                result.evidence().stream().anyMatch(e -> e.startsWith("Xid errors not checked")), "no dmesg on PATH");
    }

    @Test
    void rowRemapFailureIsAReplaceAndPendingAReboot() {
        smi("nvidia-smi/query-gpu-8-healthy.csv", "nvidia-smi/remapped-rows-pending-and-failure.csv");
        CheckResult result = new GpuCheck().run(context(OptionalInt.of(8), OptionalInt.empty()));
        assertEquals(HealthAction.REPLACE, result.action());
        String evidence = String.join("\n", result.evidence());
        assertTrue(evidence.contains("FAULT (REBOOT): GPU 1 (00000000:2A:00.0): row remapping pending"), evidence);
        assertTrue(evidence.contains("FAULT (REPLACE): GPU 2 (00000000:3A:00.0): row remapping failed"), evidence);
    }

    @Test
    void xidsAreGroupedAndClassified() {
        smi("nvidia-smi/query-gpu-8-healthy.csv", "nvidia-smi/remapped-rows-healthy.csv");
        tools.tool("dmesg", Answer.out("", "kernel-log/dmesg-xid-79-13-13.txt", 0));
        CheckResult result = new GpuCheck().run(context(OptionalInt.of(8), OptionalInt.empty()));
        assertEquals(HealthAction.REBOOT, result.action());
        assertEquals("Xid 79 (GPU has fallen off the bus) on PCI:0000:5d:00 [reset-class]", result.summary());
        assertTrue(
                result.evidence()
                        .contains("Xid 13 (graphics engine exception) on PCI:0000:2a:00, 2 times"
                                + " [application-class]"),
                result.evidence().toString());
    }

    @Test
    void refusedDmesgFallsBackToTheJournal() {
        smi("nvidia-smi/query-gpu-8-healthy.csv", "nvidia-smi/remapped-rows-healthy.csv");
        tools.tool("dmesg", Answer.err("", "nvidia-smi/driver-not-loaded.txt", 1));
        tools.tool("journalctl", Answer.out("-k", "kernel-log/dmesg-xid-64-94.txt", 0));
        CheckResult result = new GpuCheck().run(context(OptionalInt.of(8), OptionalInt.empty()));
        assertEquals(HealthAction.REPLACE, result.action(), result.toString());
        assertEquals(List.of("-k -b --no-pager -q -o cat"), tools.calls("journalctl"));
    }

    @Test
    void aDriverThatDoesNotAnswerIsAReboot() {
        tools.tool("nvidia-smi", Answer.out("", "nvidia-smi/driver-not-loaded.txt", 9));
        CheckResult result = new GpuCheck().run(context(OptionalInt.of(8), OptionalInt.empty()));
        assertEquals(HealthStatus.FAILED, result.status());
        assertEquals(HealthAction.REBOOT, result.action());
        assertTrue(result.summary().contains("couldn't communicate with the NVIDIA driver"), result.summary());
    }

    @Test
    void noNvidiaSmiIsSkipped() {
        CheckResult result = new GpuCheck().run(context(OptionalInt.of(8), OptionalInt.empty()));
        assertEquals(HealthStatus.SKIPPED, result.status());
        assertEquals(HealthAction.NONE, result.action());
    }

    private void dcgmi(String health, String diag, int diagExit) {
        tools.tool("dcgmi", Answer.out("health -c", health, 0), Answer.out("diag -r 1 -j", diag, diagExit));
    }

    @Test
    void dcgmHealthyAndDiagPassing() {
        dcgmi("dcgmi/health-healthy.txt", "dcgmi/diag-r1-pass.json", 0);
        CheckResult result = new DcgmCheck().run(context(OptionalInt.empty(), OptionalInt.empty()));
        assertEquals(HealthStatus.PASSED, result.status(), result.toString());
        assertEquals(List.of("health -c", "diag -r 1 -j"), tools.calls("dcgmi"));
    }

    @Test
    void dcgmWarningIsEvidenceOnly() {
        dcgmi("dcgmi/health-warning-pcie.txt", "dcgmi/diag-r1-pass.json", 0);
        CheckResult result = new DcgmCheck().run(context(OptionalInt.empty(), OptionalInt.empty()));
        assertEquals(HealthStatus.PASSED, result.status(), result.toString());
        assertTrue(
                result.evidence().get(0).startsWith("DCGM health Warning: "),
                result.evidence().toString());
    }

    @Test
    void dcgmFailuresTakeTheWorstAction() {
        dcgmi("dcgmi/health-failure-row-remap.txt", "dcgmi/diag-r1-fail-persistence.json", 226);
        CheckResult result = new DcgmCheck().run(context(OptionalInt.empty(), OptionalInt.empty()));
        assertEquals(HealthAction.REPLACE, result.action());
        assertTrue(
                result.evidence().stream()
                        .anyMatch(
                                e -> e.startsWith("FAULT (NONE): dcgmi diag: software Fail: GPU 0: Persistence Mode")),
                result.evidence().toString());
    }

    @Test
    void aDeploymentFailureAloneNeedsAPersonNotAReboot() {
        dcgmi("dcgmi/health-healthy.txt", "dcgmi/diag-r1-fail-persistence.json", 226);
        CheckResult result = new DcgmCheck().run(context(OptionalInt.empty(), OptionalInt.empty()));
        assertEquals(HealthStatus.FAILED, result.status());
        assertEquals(HealthAction.NONE, result.action());
    }

    @Test
    void aStoppedHostEngineIsSkipped() {
        tools.tool("dcgmi", Answer.err("", "dcgmi/hostengine-down.txt", 255));
        CheckResult result = new DcgmCheck().run(context(OptionalInt.empty(), OptionalInt.empty()));
        assertEquals(HealthStatus.SKIPPED, result.status());
        assertTrue(result.summary().contains("Unable to connect to host engine"), result.summary());
    }
}
