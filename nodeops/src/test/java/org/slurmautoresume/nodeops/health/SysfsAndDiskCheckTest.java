package org.slurmautoresume.nodeops.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.nodeops.health.FakeTools.Answer;
import org.slurmautoresume.slurm.exec.CommonsExecCommandRunner;

/** Neuron, EFA, CPU and disk checks over fixture trees, temporary mounts and fake tools. */
class SysfsAndDiskCheckTest {

    @TempDir
    Path temp;

    private HealthContext context(FakeTools tools, HealthSettings settings) {
        return new HealthContext(
                new CommonsExecCommandRunner(), new ToolLocator(tools.path()), settings, OptionalInt::empty);
    }

    private FakeTools tools() throws IOException {
        return new FakeTools(Files.createDirectories(temp.resolve("bin")));
    }

    private Path copyOfNeuronTree() throws IOException {
        Path source = HealthFixtures.path("sysfs-trn1");
        Path target = temp.resolve("sys");
        try (Stream<Path> walk = Files.walk(source)) {
            for (Path p : walk.toList()) {
                Path to = target.resolve(source.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to);
                }
            }
        }
        return target;
    }

    @Test
    void neuronCountersAtZeroPassAndCorrectedOnesAreEvidence() throws IOException {
        CheckResult result = new NeuronCheck()
                .run(context(tools(), HealthSettings.defaults().withSysfsRoot(HealthFixtures.path("sysfs-trn1"))));
        assertEquals(HealthStatus.PASSED, result.status(), result.toString());
        assertEquals("2 Neuron device(s), 12 error counters read, no uncorrected errors", result.summary());
        assertEquals(
                List.of("neuron0/stats/hardware/mem_ecc_corrected = 17 (corrected, evidence only)"), result.evidence());
    }

    @Test
    void uncorrectedNeuronEccIsAReplaceAndACoreHardwareErrorAReboot() throws IOException {
        Path sys = copyOfNeuronTree();
        Path devices = sys.resolve("devices/virtual/neuron_device");
        Files.writeString(devices.resolve("neuron1/stats/hardware/sram_ecc_uncorrected/total"), "3\n");
        Files.writeString(devices.resolve("neuron0/neuron_core1/stats/status/hw_error/total"), "1\n");
        CheckResult result =
                new NeuronCheck().run(context(tools(), HealthSettings.defaults().withSysfsRoot(sys)));
        assertEquals(HealthAction.REPLACE, result.action());
        assertTrue(
                result.evidence().contains("FAULT (REBOOT): neuron0/neuron_core1/stats/status/hw_error = 1"),
                result.evidence().toString());
        assertTrue(result.evidence().contains("FAULT (REPLACE): neuron1/stats/hardware/sram_ecc_uncorrected = 3"));
    }

    @Test
    void noNeuronDevicesIsSkipped() throws IOException {
        CheckResult result =
                new NeuronCheck().run(context(tools(), HealthSettings.defaults().withSysfsRoot(temp)));
        assertEquals(HealthStatus.SKIPPED, result.status());
    }

    private Path efaDevice(Path sys, String name, String portState, boolean driverLink) throws IOException {
        Path dev = Files.createDirectories(sys.resolve("class/infiniband/" + name));
        Files.createDirectories(dev.resolve("ports/1"));
        Files.writeString(dev.resolve("ports/1/state"), portState + "\n");
        if (driverLink) {
            Path driver = Files.createDirectories(sys.resolve("bus/pci/drivers/efa"));
            Files.createDirectories(dev.resolve("device"));
            Files.createSymbolicLink(dev.resolve("device/driver"), driver);
        }
        return dev;
    }

    @Test
    void efaDevicesByNameOrDriverWithActivePortsPass() throws IOException {
        Path sys = temp.resolve("sys");
        efaDevice(sys, "efa_0", "4: ACTIVE", false);
        efaDevice(sys, "rdmap16s27", "4: ACTIVE", true);
        efaDevice(sys, "mlx5_0", "1: DOWN", false); // another driver's device: not ours to judge
        FakeTools tools = tools().tool("fi_info", Answer.out("-p efa", "fi_info/efa.txt", 0));
        tools.script("probe", "#!/bin/sh\necho efa ok\n");
        CheckResult result = new EfaCheck()
                .run(context(tools, HealthSettings.defaults().withSysfsRoot(sys).withEfaProbe(List.of("probe"))));
        assertEquals(HealthStatus.PASSED, result.status(), result.toString());
        assertEquals("2 EFA device(s) active", result.summary());
        assertTrue(
                result.evidence().contains("connectivity probe passed"),
                result.evidence().toString());
    }

    @Test
    void onARequestTheSitesProbeSendsNoTraffic() throws IOException {
        Path sys = temp.resolve("sys");
        efaDevice(sys, "efa_0", "4: ACTIVE", false);
        FakeTools tools = tools().tool("fi_info", Answer.out("-p efa", "fi_info/efa.txt", 0));
        tools.script("probe", "#!/bin/sh\necho called >> '" + temp.resolve("probe.calls") + "'\nexit 3\n");
        CheckResult result = EfaCheck.withoutProbe()
                .run(context(tools, HealthSettings.defaults().withSysfsRoot(sys).withEfaProbe(List.of("probe"))));
        assertEquals(HealthStatus.PASSED, result.status(), result.toString());
        assertFalse(Files.exists(temp.resolve("probe.calls")), "the probe ran");
    }

    @Test
    void aDownPortAndAFailedProbeAreReboots() throws IOException {
        Path sys = temp.resolve("sys");
        efaDevice(sys, "efa_0", "1: DOWN", false);
        FakeTools tools = tools();
        tools.script("probe", "#!/bin/sh\necho 'no route to peer' >&2\nexit 3\n");
        CheckResult result = new EfaCheck()
                .run(context(
                        tools,
                        HealthSettings.defaults()
                                .withSysfsRoot(sys)
                                .withEfaProbe(List.of("probe", "--peer", "node2"))));
        assertEquals(HealthAction.REBOOT, result.action());
        assertEquals("efa_0 port 1 is not active: 1: DOWN (and 1 more)", result.summary());
        assertTrue(result.evidence().contains("fi_info is not on PATH: libfabric's EFA provider not checked"));
        assertTrue(
                result.evidence().stream().anyMatch(e -> e.contains("no route to peer")),
                result.evidence().toString());
    }

    @Test
    void noEfaDevicesIsSkipped() throws IOException {
        CheckResult result =
                new EfaCheck().run(context(tools(), HealthSettings.defaults().withSysfsRoot(temp)));
        assertEquals(HealthStatus.SKIPPED, result.status());
    }

    @Test
    void stressNgRunsThroughTheRunnerWithItsArguments() throws IOException {
        FakeTools tools = tools().tool("stress-ng", Answer.out("--verify", "stress-ng/verification-failure.txt", 7));
        CheckResult result =
                new CpuCheck().run(context(tools, HealthSettings.defaults().withCpuStress(Duration.ofSeconds(3))));
        assertEquals(HealthAction.REPLACE, result.action());
        assertEquals(
                List.of("--cpu 0 --cpu-method all --verify --timeout 3s --metrics-brief"), tools.calls("stress-ng"));
    }

    @Test
    void noStressNgIsSkipped() throws IOException {
        Files.createDirectories(temp.resolve("empty"));
        HealthContext context = new HealthContext(
                new CommonsExecCommandRunner(),
                new ToolLocator(temp.resolve("empty").toString()),
                HealthSettings.defaults(),
                OptionalInt::empty);
        assertEquals(HealthStatus.SKIPPED, new CpuCheck().run(context).status());
    }

    private HealthSettings disk(String table, List<Path> mounts, int minFree) throws IOException {
        Path file = temp.resolve("mounts");
        Files.writeString(file, table);
        return HealthSettings.defaults().withMounts(file, mounts, minFree);
    }

    @Test
    void aWritableMountWithSpacePasses() throws IOException {
        Path data = Files.createDirectories(temp.resolve("data"));
        CheckResult result = new DiskCheck()
                .run(context(tools(), disk("/dev/sda1 " + data + " ext4 rw,relatime 0 0\n", List.of(data), 0)));
        assertEquals(HealthStatus.PASSED, result.status(), result.toString());
        assertTrue(result.evidence().contains(data + " is writable"));
        try (Stream<Path> left = Files.list(data)) {
            assertEquals(0, left.count(), "the probe file is removed");
        }
    }

    @Test
    void readOnlyAndMissingMountsAreReboots() throws IOException {
        Path data = Files.createDirectories(temp.resolve("data"));
        CheckResult result = new DiskCheck()
                .run(context(
                        tools(),
                        disk("/dev/sda1 " + data + " ext4 ro,relatime 0 0\n", List.of(data, Path.of("/fsx")), 0)));
        assertEquals(HealthAction.REBOOT, result.action());
        assertEquals(data + " is mounted read-only (/dev/sda1, ext4) (and 1 more)", result.summary());
        assertTrue(
                result.evidence().contains("FAULT (REBOOT): /fsx is not mounted"),
                result.evidence().toString());
    }

    @Test
    void aFullDiskFailsButAsksForNoRebootOrReplacement() throws IOException {
        Path data = Files.createDirectories(temp.resolve("data"));
        CheckResult result =
                new DiskCheck().run(context(tools(), disk("/dev/sda1 " + data + " ext4 rw 0 0\n", List.of(data), 100)));
        assertEquals(HealthStatus.FAILED, result.status());
        assertEquals(HealthAction.FREE_SPACE, result.action());
        assertTrue(
                result.evidence().stream().anyMatch(e -> e.contains("below the 100 % floor")),
                result.evidence().toString());
    }
}
