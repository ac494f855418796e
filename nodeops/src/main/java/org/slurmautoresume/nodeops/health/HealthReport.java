package org.slurmautoresume.nodeops.health;

import java.util.List;

/** Every check that ran, in order; FAILED when any failed, with the costliest action they ask for. */
public record HealthReport(List<CheckResult> results) {

    public HealthReport {
        results = List.copyOf(results);
    }

    public boolean failed() {
        return results.stream().anyMatch(CheckResult::failed);
    }

    public HealthStatus status() {
        if (failed()) {
            return HealthStatus.FAILED;
        }
        return results.stream().allMatch(r -> r.status() == HealthStatus.SKIPPED) ? HealthStatus.SKIPPED : HealthStatus.PASSED;
    }

    public HealthAction worstAction() {
        HealthAction worst = HealthAction.NONE;
        for (CheckResult result : results) {
            worst = worst.worse(result.action());
        }
        return worst;
    }

    public List<CheckResult> failures() {
        return results.stream().filter(CheckResult::failed).toList();
    }
}
