package org.slurmautoresume.nodeops.health;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.slurmautoresume.slurm.exec.CommandResult;

/**
 * NVIDIA DCGM through {@code dcgmi}: the background health watches ({@code dcgmi health -c};
 * an admin enables them once with {@code dcgmi health -s a}) and a quick diagnostic
 * ({@code dcgmi diag -r 1 -j} by default, read from its JSON: {@link DcgmDiagJson}). A Failure verdict fails the check; warnings are evidence.
 */
public final class DcgmCheck implements HealthCheck {

    public static final String NAME = "dcgm";
    static final Duration HEALTH_TIMEOUT = Duration.ofSeconds(30);
    /** Level 1 takes seconds, level 2 a couple of minutes; 3 and 4 are for maintenance windows. */
    static final Duration DIAG_TIMEOUT = Duration.ofMinutes(10);

    /** Diag tests that exercise the hardware itself: a failure there means the GPU is bad (REPLACE). */
    private static final Set<String> HARDWARE_TESTS = Set.of(
            "pcie",
            "gpu memory",
            "memory",
            "memory bandwidth",
            "diagnostic",
            "targeted stress",
            "targeted power",
            "sm stress",
            "memtest",
            "pulse test",
            "inforom",
            "eud");

    private final boolean diag;

    /** The health watches and the diagnostic: the one-shot check. */
    public DcgmCheck() {
        this(true);
    }

    private DcgmCheck(boolean diag) {
        this.diag = diag;
    }

    /**
     * The health watches only: for a caller that asks at an interval while jobs run (the agent);
     * a diagnostic takes the GPUs away from them for seconds to minutes.
     */
    public static DcgmCheck healthOnly() {
        return new DcgmCheck(false);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return diag
                ? "dcgmi health -c (DCGM health watches) and dcgmi diag -r 1 -j"
                : "dcgmi health -c (DCGM health watches)";
    }

    @Override
    public CheckResult run(HealthContext context) {
        Optional<Path> dcgmi = context.tool("dcgmi");
        if (dcgmi.isEmpty()) {
            return CheckResult.skipped(NAME, "dcgmi is not on PATH (DCGM is not installed)");
        }
        List<Finding> findings = new ArrayList<>();
        CommandResult health = context.run(dcgmi.get(), List.of("health", "-c"), HEALTH_TIMEOUT);
        boolean healthRead = addHealth(health, findings);
        if (!diag) {
            return healthRead
                    ? CheckResult.of(NAME, findings, "DCGM health passed")
                    : CheckResult.skipped(NAME, "DCGM did not answer: " + HealthContext.describeFailure(health));
        }
        int level = context.settings().dcgmDiagLevel();
        // JSON (-j), read with Jackson: the tables wrap long warnings across rows and change between releases.
        CommandResult diag =
                context.run(dcgmi.get(), List.of("diag", "-r", Integer.toString(level), "-j"), DIAG_TIMEOUT);
        boolean diagRead = addDiag(diag, level, findings);
        if (!healthRead && !diagRead) {
            // dcgmi is installed but the host engine (nv-hostengine) did not answer: no verdict either way.
            return CheckResult.skipped(NAME, "DCGM did not answer: " + HealthContext.describeFailure(health));
        }
        return CheckResult.of(NAME, findings, "DCGM health and diag level " + level + " passed");
    }

    private static boolean addHealth(CommandResult result, List<Finding> findings) {
        DcgmReport.Health health = DcgmReport.health(result.stdout());
        if (health.overall().isEmpty()) {
            findings.add(Finding.note("dcgmi health gave no verdict: " + HealthContext.describeFailure(result)));
            return false;
        }
        String details = health.details().isEmpty() ? "" : ": " + String.join("; ", health.details());
        switch (health.overall().get()) {
            case "Failure" ->
                findings.add(Finding.fault(healthAction(health.details()), "DCGM health Failure" + details));
            case "Warning" -> findings.add(Finding.note("DCGM health Warning" + details));
            default -> findings.add(Finding.note("DCGM health Healthy"));
        }
        return true;
    }

    /** A failed row remap or a corrupt InfoROM does not heal with a reset; the rest (DBE, XID, PCIe replays) may. */
    static HealthAction healthAction(List<String> details) {
        for (String detail : details) {
            String d = detail.toLowerCase(Locale.ROOT);
            if (d.contains("inforom")
                    || (d.contains("remap") && d.contains("fail"))
                    || (d.contains("retire") && (d.contains("limit") || d.contains("threshold")))) {
                return HealthAction.REPLACE;
            }
        }
        return HealthAction.REBOOT;
    }

    private static boolean addDiag(CommandResult result, int level, List<Finding> findings) {
        if (result.timedOut()) {
            findings.add(Finding.fault(
                    HealthAction.REBOOT,
                    "dcgmi diag -r " + level + " did not finish: " + HealthContext.describeFailure(result)));
            return true;
        }
        List<DcgmDiagJson.DiagTest> tests = DcgmDiagJson.parse(result.stdout());
        if (tests.isEmpty()) {
            findings.add(Finding.note("dcgmi diag gave no results: " + HealthContext.describeFailure(result)));
            return false;
        }
        int failed = 0;
        for (DcgmDiagJson.DiagTest test : tests) {
            if (test.failed()) {
                failed++;
                String text = "dcgmi diag: " + test.name() + " Fail"
                        + (test.messages().isEmpty() ? "" : ": " + String.join("; ", test.messages()));
                findings.add(Finding.fault(diagAction(test), text));
            }
        }
        if (failed == 0) {
            findings.add(Finding.note("dcgmi diag -r " + level + ": " + tests.size() + " tests, none failed"));
        }
        return true;
    }

    static HealthAction diagAction(DcgmDiagJson.DiagTest test) {
        String name = test.name().toLowerCase(Locale.ROOT);
        if (HARDWARE_TESTS.contains(name)) {
            return HealthAction.REPLACE;
        }
        if (name.startsWith("page retirement")) {
            return healthAction(test.messages());
        }
        if (name.startsWith("graphics processes")) {
            return HealthAction.REBOOT; // stray processes hold the GPU; a reboot clears them
        }
        // Deployment tests (libraries, permissions, persistence mode, environment): the node's
        // configuration is wrong, which neither a reboot nor new hardware fixes.
        return HealthAction.NONE;
    }
}
