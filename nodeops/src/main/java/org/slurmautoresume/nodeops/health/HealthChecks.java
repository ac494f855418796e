package org.slurmautoresume.nodeops.health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.LoggerFactory;

/**
 * The registry and runner of node health checks: the one entry point for the health command,
 * the sweep and the agent. {@code run(context)} runs every check; {@code run(context, names)}
 * the named ones, in the registry's order. A check that throws is a bug and is reported as a
 * FAILED result with action NONE rather than ending the run, so one broken check cannot hide
 * the others' verdicts.
 */
public final class HealthChecks {

    /**
     * The environment variable that tells a health command who asked for it, and its value when a
     * user's request did ({@code autoresume agent --health-command} sets it): then only
     * {@link #onRequest} checks run. Unset, or any other value: every check, as on a schedule.
     */
    public static final String ON_REQUEST_VARIABLE = "AUTORESUME_CHECK";

    public static final String ON_REQUEST = "on-request";

    private final Map<String, HealthCheck> checks = new LinkedHashMap<>();

    public HealthChecks(Collection<? extends HealthCheck> checks) {
        for (HealthCheck check : checks) {
            if (this.checks.putIfAbsent(check.name(), check) != null) {
                throw new IllegalArgumentException("two health checks are called " + check.name());
            }
        }
    }

    /** gpu, dcgm, neuron, efa, cpu, disk. */
    public static HealthChecks standard() {
        return new HealthChecks(List.of(
                new GpuCheck(), new DcgmCheck(), new NeuronCheck(), new EfaCheck(), new CpuCheck(), new DiskCheck()));
    }

    /**
     * The checks that only read the node's state, for a run a user's request asked for (the agent
     * sets {@code AUTORESUME_CHECK=on-request} for its {@code --health-command}), on a node other
     * jobs may share: the same names, but DCGM's health watches without its diagnostic (which
     * takes the GPUs from the jobs on them), EFA without the site's traffic probe, and CPU stress
     * skipped. Nothing here loads the hardware.
     */
    public static HealthChecks onRequest() {
        return new HealthChecks(List.of(
                new GpuCheck(),
                DcgmCheck.healthOnly(),
                new NeuronCheck(),
                EfaCheck.withoutProbe(),
                new NotOnRequest(new CpuCheck()),
                new DiskCheck()));
    }

    public List<String> names() {
        return List.copyOf(checks.keySet());
    }

    public List<HealthCheck> all() {
        return List.copyOf(checks.values());
    }

    public HealthReport run(HealthContext context) {
        return run(context, names());
    }

    /** Runs the named checks; an unknown name is an {@link IllegalArgumentException} naming the known ones. */
    public HealthReport run(HealthContext context, Collection<String> names) {
        Objects.requireNonNull(context);
        for (String name : names) {
            if (!checks.containsKey(name)) {
                throw new IllegalArgumentException(
                        "no health check called \"" + name + "\"; known: " + String.join(", ", checks.keySet()));
            }
        }
        List<CheckResult> results = new ArrayList<>();
        for (HealthCheck check : checks.values()) {
            if (names.contains(check.name())) {
                results.add(runOne(check, context));
            }
        }
        return new HealthReport(results);
    }

    private static CheckResult runOne(HealthCheck check, HealthContext context) {
        long started = System.nanoTime();
        CheckResult result;
        try {
            result = check.run(context);
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(HealthChecks.class).error("health check {} broke", check.name(), e);
            result = CheckResult.of(
                    check.name(),
                    List.of(Finding.fault(HealthAction.NONE, "the check itself broke (a bug, please report): " + e)),
                    "");
        }
        return result.withElapsed(Duration.ofNanos(System.nanoTime() - started));
    }
}
