package org.slurmautoresume.nodeops.health;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;
import org.slurmautoresume.slurm.exec.CommandResult;

/**
 * AWS Elastic Fabric Adapter: the RDMA devices under {@code <sysfs>/class/infiniband} that
 * belong to the efa driver (named {@code efa_N}, or renamed by udev with the driver link still
 * saying efa), each port ACTIVE; libfabric's EFA provider present ({@code fi_info -p efa}); and,
 * when the site configured one, a connectivity probe program that exits 0 when traffic flows.
 */
public final class EfaCheck implements HealthCheck {

    public static final String NAME = "efa";
    static final Duration FI_INFO_TIMEOUT = Duration.ofSeconds(30);
    static final Duration PROBE_TIMEOUT = Duration.ofMinutes(2);

    private final boolean probe;

    /** Devices, provider and the site's connectivity probe. */
    public EfaCheck() {
        this(true);
    }

    private EfaCheck(boolean probe) {
        this.probe = probe;
    }

    /**
     * Devices and provider only: for a check a job's request asked for, since the site's probe
     * sends traffic over the adapters that jobs on the node are using.
     */
    public static EfaCheck withoutProbe() {
        return new EfaCheck(false);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "EFA devices and port states in sysfs, fi_info -p efa, an optional connectivity probe";
    }

    @Override
    public CheckResult run(HealthContext context) {
        Path root = context.settings().sysfsRoot().resolve("class/infiniband");
        List<Path> devices;
        try {
            devices = SysfsTree.entries(root, EfaCheck::isEfa);
        } catch (IOException e) {
            return CheckResult.of(
                    NAME, List.of(Finding.fault(HealthAction.REBOOT, "cannot list " + root + ": " + e)), "");
        }
        if (devices.isEmpty()) {
            return CheckResult.skipped(NAME, "no EFA devices under " + root);
        }
        List<Finding> findings = new ArrayList<>();
        for (Path device : devices) {
            checkPorts(device, findings);
        }
        checkProvider(context, findings);
        if (probe) {
            probe(context, findings);
        } else if (!context.settings().efaProbe().isEmpty()) {
            findings.add(Finding.note("connectivity probe not run on a request: it sends traffic jobs share"));
        }
        return CheckResult.of(NAME, findings, devices.size() + " EFA device(s) active");
    }

    static boolean isEfa(Path device) {
        if (device.getFileName().toString().startsWith("efa")) {
            return true;
        }
        try {
            Path driver = Files.readSymbolicLink(device.resolve("device/driver"));
            return driver.getFileName() != null
                    && driver.getFileName().toString().equals("efa");
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static void checkPorts(Path device, List<Finding> findings) {
        String name = device.getFileName().toString();
        List<Path> states;
        try (Stream<Path> ports = Files.list(device.resolve("ports"))) {
            states = ports.map(p -> p.resolve("state"))
                    .filter(Files::isRegularFile)
                    .sorted()
                    .toList();
        } catch (IOException e) {
            findings.add(Finding.fault(HealthAction.REBOOT, name + ": no ports readable (" + e.getMessage() + ")"));
            return;
        }
        if (states.isEmpty()) {
            findings.add(Finding.fault(HealthAction.REBOOT, name + ": no ports"));
        }
        for (Path state : states) {
            String port = state.getParent().getFileName().toString();
            String text;
            try {
                text = Files.readString(state, StandardCharsets.US_ASCII).strip();
            } catch (IOException e) {
                findings.add(Finding.fault(HealthAction.REBOOT, name + " port " + port + ": unreadable state"));
                continue;
            }
            // The file reads "4: ACTIVE"; anything else (DOWN, INIT, ARMED) cannot carry traffic.
            if (text.toUpperCase(Locale.ROOT).endsWith("ACTIVE")) {
                findings.add(Finding.note(name + " port " + port + ": " + text));
            } else {
                findings.add(Finding.fault(HealthAction.REBOOT, name + " port " + port + " is not active: " + text));
            }
        }
    }

    private static void checkProvider(HealthContext context, List<Finding> findings) {
        Optional<Path> fiInfo = context.tool("fi_info");
        if (fiInfo.isEmpty()) {
            findings.add(Finding.note("fi_info is not on PATH: libfabric's EFA provider not checked"));
            return;
        }
        CommandResult result = context.run(fiInfo.get(), List.of("-p", "efa"), FI_INFO_TIMEOUT);
        if (result.succeeded()
                && result.stdout().lines().anyMatch(l -> l.strip().equals("provider: efa"))) {
            findings.add(Finding.note("fi_info -p efa lists the EFA provider"));
        } else {
            findings.add(Finding.fault(
                    HealthAction.REBOOT,
                    "libfabric does not offer the EFA provider: "
                            + (result.succeeded()
                                    ? "fi_info -p efa listed nothing"
                                    : HealthContext.describeFailure(result))));
        }
    }

    private static void probe(HealthContext context, List<Finding> findings) {
        List<String> argv = context.settings().efaProbe();
        if (argv.isEmpty()) {
            findings.add(Finding.note("no connectivity probe configured"));
            return;
        }
        String program = argv.get(0);
        Optional<Path> path = program.contains("/") ? Optional.of(Path.of(program)) : context.tool(program);
        if (path.isEmpty()) {
            findings.add(Finding.fault(HealthAction.NONE, "EFA probe program " + program + " is not on PATH"));
            return;
        }
        CommandResult result = context.run(path.get(), argv.subList(1, argv.size()), PROBE_TIMEOUT);
        if (result.succeeded()) {
            findings.add(Finding.note("connectivity probe passed"));
        } else {
            findings.add(Finding.fault(
                    HealthAction.REBOOT, "connectivity probe failed: " + HealthContext.describeFailure(result)));
        }
    }
}
