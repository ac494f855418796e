package org.slurmautoresume.nodeops.health;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * What the checks are told about the node: the GPU count to expect (empty: ask Slurm, or skip
 * the comparison), the sysfs and mount-table locations (tests point them at fixture trees), the
 * mounts that must be present and writable, the free-space floor, how long the CPU stress runs,
 * the optional EFA connectivity probe (a program and its arguments) and the DCGM diag level.
 */
public record HealthSettings(
        OptionalInt expectedGpus,
        Path sysfsRoot,
        Path mountsFile,
        List<Path> mounts,
        int minFreePercent,
        Duration cpuStress,
        List<String> efaProbe,
        int dcgmDiagLevel) {

    public static final Path SYSFS = Path.of("/sys");
    public static final Path PROC_MOUNTS = Path.of("/proc/mounts");

    public HealthSettings {
        Objects.requireNonNull(expectedGpus, "expectedGpus");
        Objects.requireNonNull(sysfsRoot, "sysfsRoot");
        Objects.requireNonNull(mountsFile, "mountsFile");
        Objects.requireNonNull(cpuStress, "cpuStress");
        mounts = List.copyOf(mounts);
        efaProbe = List.copyOf(efaProbe);
        if (expectedGpus.isPresent() && expectedGpus.getAsInt() < 0) {
            throw new IllegalArgumentException("expected GPU count must not be negative: " + expectedGpus.getAsInt());
        }
        if (minFreePercent < 0 || minFreePercent > 100) {
            throw new IllegalArgumentException("minimum free space must be 0..100 %, not " + minFreePercent);
        }
        if (cpuStress.isNegative() || cpuStress.isZero()) {
            throw new IllegalArgumentException("CPU stress duration must be positive: " + cpuStress);
        }
        if (dcgmDiagLevel < 1 || dcgmDiagLevel > 4) {
            throw new IllegalArgumentException("dcgmi diag level must be 1..4, not " + dcgmDiagLevel);
        }
    }

    /** The real node: /sys, /proc/mounts, / and /tmp with 5 % free, 10 s of CPU stress, diag level 1. */
    public static HealthSettings defaults() {
        return new HealthSettings(
                OptionalInt.empty(),
                SYSFS,
                PROC_MOUNTS,
                List.of(Path.of("/"), Path.of("/tmp")),
                5,
                Duration.ofSeconds(10),
                List.of(),
                1);
    }

    public HealthSettings withExpectedGpus(OptionalInt count) {
        return new HealthSettings(
                count, sysfsRoot, mountsFile, mounts, minFreePercent, cpuStress, efaProbe, dcgmDiagLevel);
    }

    public HealthSettings withSysfsRoot(Path root) {
        return new HealthSettings(
                expectedGpus, root, mountsFile, mounts, minFreePercent, cpuStress, efaProbe, dcgmDiagLevel);
    }

    public HealthSettings withMounts(Path table, List<Path> required, int minFree) {
        return new HealthSettings(
                expectedGpus, sysfsRoot, table, required, minFree, cpuStress, efaProbe, dcgmDiagLevel);
    }

    public HealthSettings withCpuStress(Duration duration) {
        return new HealthSettings(
                expectedGpus, sysfsRoot, mountsFile, mounts, minFreePercent, duration, efaProbe, dcgmDiagLevel);
    }

    public HealthSettings withEfaProbe(List<String> argv) {
        return new HealthSettings(
                expectedGpus, sysfsRoot, mountsFile, mounts, minFreePercent, cpuStress, argv, dcgmDiagLevel);
    }

    public HealthSettings withDcgmDiagLevel(int level) {
        return new HealthSettings(
                expectedGpus, sysfsRoot, mountsFile, mounts, minFreePercent, cpuStress, efaProbe, level);
    }
}
