package org.slurmautoresume.nodeops.health;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * AWS Neuron devices (Trainium, Inferentia) through the driver's sysfs counters under
 * {@code <sysfs>/devices/virtual/neuron_device/neuronN/}: every counter directory named in
 * {@link #COUNTERS} holds a {@code total} file; a non-zero total of a fault counter fails the
 * check. Symbolic links are not followed (sysfs links back into itself).
 */
public final class NeuronCheck implements HealthCheck {

    public static final String NAME = "neuron";
    private static final int MAX_DEPTH = 6;

    /** Counter directory name -> the action a non-zero total asks for; NONE counters are evidence only. */
    static final Map<String, HealthAction> COUNTERS = Map.of(
            "mem_ecc_uncorrected", HealthAction.REPLACE,
            "sram_ecc_uncorrected", HealthAction.REPLACE,
            "hw_error", HealthAction.REBOOT,
            "mem_ecc_corrected", HealthAction.NONE,
            "sram_ecc_corrected", HealthAction.NONE);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Neuron sysfs error counters (uncorrected HBM/SRAM ECC, NeuronCore hardware errors)";
    }

    @Override
    public CheckResult run(HealthContext context) {
        Path root = context.settings().sysfsRoot().resolve("devices/virtual/neuron_device");
        List<Path> devices;
        try {
            devices = SysfsTree.entries(
                    root, p -> p.getFileName().toString().startsWith("neuron") && Files.isDirectory(p));
        } catch (IOException e) {
            return CheckResult.of(
                    NAME, List.of(Finding.fault(HealthAction.REBOOT, "cannot list " + root + ": " + e)), "");
        }
        if (devices.isEmpty()) {
            return CheckResult.skipped(NAME, "no Neuron devices under " + root);
        }
        List<Finding> findings = new ArrayList<>();
        int counters = 0;
        for (Path device : devices) {
            counters += readDevice(root, device, findings);
        }
        if (counters == 0) {
            findings.add(Finding.note("no known error counters found under " + root + " (driver too old or too new?)"));
        }
        return CheckResult.of(
                NAME,
                findings,
                devices.size() + " Neuron device(s), " + counters + " error counters read, no uncorrected errors");
    }

    private static int readDevice(Path root, Path device, List<Finding> findings) {
        List<Path> totals;
        try (Stream<Path> walk = Files.walk(device, MAX_DEPTH)) {
            totals = walk.filter(p -> p.getFileName().toString().equals("total")
                            && COUNTERS.containsKey(p.getParent().getFileName().toString()))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            findings.add(Finding.fault(HealthAction.REBOOT, "cannot read " + device + ": " + e.getMessage()));
            return 0;
        }
        for (Path total : totals) {
            String counter = total.getParent().getFileName().toString();
            String where = root.relativize(total.getParent()).toString();
            long value;
            try {
                value = Long.parseLong(
                        Files.readString(total, StandardCharsets.US_ASCII).strip());
            } catch (IOException | NumberFormatException e) {
                findings.add(Finding.note("unreadable counter " + where + ": " + e.getMessage()));
                continue;
            }
            HealthAction action = COUNTERS.get(counter);
            if (value > 0 && action != HealthAction.NONE) {
                findings.add(Finding.fault(action, where + " = " + value));
            } else if (value > 0) {
                findings.add(Finding.note(where + " = " + value + " (corrected, evidence only)"));
            }
        }
        return totals.size();
    }
}
