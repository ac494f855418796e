package org.slurmautoresume.nodeops.health;

import java.util.Objects;

/**
 * A check that disturbs the jobs on the node (CPU stress takes every core for seconds), in the
 * set run on a request ({@link HealthChecks#onRequest}): known by its name, so {@code --check cpu}
 * is still valid, and SKIPPED with the reason instead of run.
 */
record NotOnRequest(HealthCheck check) implements HealthCheck {

    NotOnRequest {
        Objects.requireNonNull(check);
    }

    @Override
    public String name() {
        return check.name();
    }

    @Override
    public String description() {
        return check.description() + " (not on a request: it disturbs the jobs on the node)";
    }

    @Override
    public CheckResult run(HealthContext context) {
        return CheckResult.skipped(
                check.name(), "not run on a request: " + check.description() + " disturbs the jobs on the node");
    }
}
