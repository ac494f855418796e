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
 * the named ones; their results come in the registry's order. The checks run side by side, each
 * on a thread of its own (the first on the caller's), so a run lasts as long as its slowest check
 * rather than their sum: nvidia-smi, dcgmi and the disk's statfs each wait on the node, not on
 * this process. A check that {@linkplain HealthCheck#runsAlone runs alone} (CPU stress) runs
 * after them. A check that throws is a bug and is reported as a FAILED result with action NONE
 * rather than ending the run, so one broken check cannot hide the others' verdicts.
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
        List<HealthCheck> chosen = new ArrayList<>();
        for (HealthCheck check : checks.values()) {
            if (names.contains(check.name())) {
                chosen.add(check);
            }
        }
        CheckResult[] results = new CheckResult[chosen.size()];
        List<Thread> beside = new ArrayList<>();
        int here = -1;
        for (int i = 0; i < chosen.size(); i++) {
            if (chosen.get(i).runsAlone()) {
                continue;
            }
            if (here < 0) {
                here = i;
                continue;
            }
            int slot = i;
            Thread thread = new Thread(
                    () -> results[slot] = runOne(chosen.get(slot), context),
                    "health-" + chosen.get(slot).name());
            thread.setDaemon(true);
            thread.start();
            beside.add(thread);
        }
        if (here >= 0) {
            results[here] = runOne(chosen.get(here), context);
        }
        joinAll(beside);
        for (int i = 0; i < chosen.size(); i++) {
            if (chosen.get(i).runsAlone()) {
                results[i] = runOne(chosen.get(i), context);
            }
        }
        return new HealthReport(List.of(results));
    }

    /**
     * Waits for every check beside this thread to end (each ends by its own timeouts, as it did one
     * after the other); an interrupt is kept for the caller, not a reason to report half the node.
     */
    private static void joinAll(List<Thread> threads) {
        boolean interrupted = false;
        for (Thread thread : threads) {
            while (thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
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
