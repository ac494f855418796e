package org.slurmautoresume.nodeops.health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The outcome of one check: its status, the action it asks for (NONE unless FAILED), a one-line
 * summary, the evidence lines it was decided on and, of those, the faults' own words (what a
 * node reason may quote: {@link DiskDrain} names the full filesystems from them).
 */
public record CheckResult(
        String check,
        HealthStatus status,
        HealthAction action,
        String summary,
        List<String> evidence,
        List<String> faults,
        Duration elapsed) {

    public CheckResult {
        Objects.requireNonNull(check, "check");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(elapsed, "elapsed");
        evidence = List.copyOf(evidence);
        faults = List.copyOf(faults);
        if (status != HealthStatus.FAILED && action != HealthAction.NONE) {
            throw new IllegalArgumentException(check + ": only a failed check asks for an action, not " + status);
        }
    }

    public static CheckResult skipped(String check, String why) {
        return new CheckResult(
                check, HealthStatus.SKIPPED, HealthAction.NONE, why, List.of(), List.of(), Duration.ZERO);
    }

    /**
     * FAILED with the worst action of the fault findings when there is one, else PASSED; the
     * summary names the faults (or says what passed), the evidence keeps every finding.
     */
    public static CheckResult of(String check, List<Finding> findings, String passedSummary) {
        List<String> evidence = new ArrayList<>(findings.size());
        List<String> faults = new ArrayList<>();
        HealthAction action = HealthAction.NONE;
        for (Finding finding : findings) {
            evidence.add((finding.fault() ? "FAULT (" + finding.action() + "): " : "") + finding.text());
            if (finding.fault()) {
                faults.add(finding.text());
                action = action.worse(finding.action());
            }
        }
        if (faults.isEmpty()) {
            return new CheckResult(
                    check, HealthStatus.PASSED, HealthAction.NONE, passedSummary, evidence, List.of(), Duration.ZERO);
        }
        String summary = faults.size() == 1 ? faults.get(0) : faults.get(0) + " (and " + (faults.size() - 1) + " more)";
        return new CheckResult(check, HealthStatus.FAILED, action, summary, evidence, faults, Duration.ZERO);
    }

    public CheckResult withElapsed(Duration took) {
        return new CheckResult(check, status, action, summary, evidence, faults, took);
    }

    public boolean failed() {
        return status == HealthStatus.FAILED;
    }
}
