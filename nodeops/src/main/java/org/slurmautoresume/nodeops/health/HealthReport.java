package org.slurmautoresume.nodeops.health;

import java.util.List;
import java.util.Optional;

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
        return results.stream().allMatch(r -> r.status() == HealthStatus.SKIPPED)
                ? HealthStatus.SKIPPED
                : HealthStatus.PASSED;
    }

    /**
     * The costliest action the failures ask for. A failure that needs a person (NONE) outranks a
     * filesystem short of space (FREE_SPACE): the node is then drained for the person, and a check
     * that later finds space again must not return it while the other fault stands.
     */
    public HealthAction worstAction() {
        HealthAction worst = HealthAction.NONE;
        boolean needsPerson = false;
        for (CheckResult result : failures()) {
            worst = worst.worse(result.action());
            needsPerson |= result.action() == HealthAction.NONE;
        }
        return worst == HealthAction.FREE_SPACE && needsPerson ? HealthAction.NONE : worst;
    }

    /** The result of the check called {@code name}, when it ran. */
    public Optional<CheckResult> result(String name) {
        for (CheckResult result : results) { // no stream: its find lambdas are spun at first use
            if (result.check().equals(name)) {
                return Optional.of(result);
            }
        }
        return Optional.empty();
    }

    public List<CheckResult> failures() {
        return results.stream().filter(CheckResult::failed).toList();
    }
}
