package org.slurmautoresume.supervisor.step.settings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.protocol.AgentOutage;
import org.slurmautoresume.slurm.probe.LivenessProber;
import org.slurmautoresume.supervisor.recovery.Replacement;
import org.slurmautoresume.supervisor.recovery.SparePool;
import org.slurmautoresume.supervisor.step.record.JobStateDirectory;

/**
 * How the supervisor behaves, read from its environment once, at start. The log rules and the restart policy
 * come from configuration files ({@link org.slurmautoresume.supervisor.config.ConfigLoader}); the
 * retry and exhaustion variables here, when set, override the files (see {@link org.slurmautoresume.supervisor.step.restart.RestartGate}).
 *
 * @param maxAppRetries      how often a step that failed on healthy nodes is re-run in place
 *                           ({@code AUTORESUME_MAX_APP_RETRIES}, default 0: never)
 * @param maxNodeRetries     how often a step is re-run after its nodes were replaced
 *                           ({@code AUTORESUME_MAX_NODE_RETRIES}, default 2)
 * @param maxSameFailures    how many attempts in a row may fail the same way (same exit status and
 *                           log rule or error lines) before the step is no longer re-run, whatever
 *                           budget is left ({@code AUTORESUME_MAX_SAME_FAILURES}, default 3; 0: no limit)
 * @param replacement        where replacements come from ({@code AUTORESUME_REPLACEMENT}: spare,
 *                           same-hostname, command or reboot; spare by default when a spare pool is
 *                           configured); empty: node faults are reported, not repaired
 * @param spares             the spare pool ({@code AUTORESUME_SPARE_PARTITION},
 *                           {@code AUTORESUME_SPARE_FEATURE}, {@code AUTORESUME_SPARE_NODES})
 * @param replacementTimeout how long to wait for replacements before giving up
 *                           ({@code AUTORESUME_REPLACEMENT_TIMEOUT} in seconds, default 300)
 * @param onExhausted        what happens to the job when a node fault cannot be repaired or the
 *                           retries are used up ({@code AUTORESUME_ON_EXHAUSTED}: exit, the default,
 *                           or requeue: Slurm requeues the whole batch job)
 * @param nodeFaultFallback  the end of the node-fault path when no repair is left
 *                           ({@code AUTORESUME_NODE_FAULT_FALLBACK}: requeue, the default, has Slurm
 *                           requeue a requeueable job with the faulty nodes kept out, as Slurm alone
 *                           would have; exit ends as the policy says. An explicit
 *                           {@code AUTORESUME_ON_EXHAUSTED=exit} without it means exit too.)
 * @param agentSocket        the privileged agent's socket ({@code AUTORESUME_AGENT_SOCKET})
 * @param stateDir           the user's directory for per-job files (restart history, timeline, preflight
 *                           marker): see {@link JobStateDirectory#locate}
 * @param controllerOutage   how long Slurm calls on the recovery path keep trying while slurmctld is
 *                           away ({@code AUTORESUME_CONTROLLER_OUTAGE} in seconds; empty: the
 *                           cluster's SlurmctldTimeout plus a margin, see
 *                           {@link org.slurmautoresume.slurm.exec.ControllerOutage#boundFor})
 * @param livenessPort       the port the nodes' agents answer liveness probes on
 *                           ({@code AUTORESUME_LIVENESS_PORT}); 0 probes slurmd alone
 * @param checkPort          the port the nodes' agents run their GPU checks out of turn on
 *                           ({@code AUTORESUME_CHECK_PORT}); 0 asks for none
 * @param agentOutage        how long recovery's requests wait for a restarting agent
 *                           ({@code AUTORESUME_AGENT_OUTAGE}, seconds)
 * @param setInEnvironment   which of the budget variables were set at all: a set one beats the
 *                           configuration files (see {@link org.slurmautoresume.supervisor.step.restart.RestartGate})
 * @param allocation         what the environment says of the job this supervisor runs in
 */
public record SupervisorSettings(
        int maxAppRetries,
        int maxNodeRetries,
        int maxSameFailures,
        Optional<Replacement> replacement,
        Optional<SparePool> spares,
        Duration replacementTimeout,
        OnExhausted onExhausted,
        NodeFaultFallback nodeFaultFallback,
        Path agentSocket,
        Path stateDir,
        Optional<Duration> controllerOutage,
        int livenessPort,
        int checkPort,
        Duration agentOutage,
        SetInEnvironment setInEnvironment,
        Allocation allocation) {

    public static final String MAX_APP_RETRIES = "AUTORESUME_MAX_APP_RETRIES";
    public static final String MAX_NODE_RETRIES = "AUTORESUME_MAX_NODE_RETRIES";
    public static final String MAX_SAME_FAILURES = "AUTORESUME_MAX_SAME_FAILURES";
    /** The third identical failure in a row ends the step: two are a coincidence, three a loop. */
    public static final int DEFAULT_MAX_SAME_FAILURES = 3;

    public static final String REPLACEMENT = "AUTORESUME_REPLACEMENT";
    public static final String REPLACEMENT_TIMEOUT = "AUTORESUME_REPLACEMENT_TIMEOUT";
    public static final String ON_EXHAUSTED = "AUTORESUME_ON_EXHAUSTED";
    public static final String NODE_FAULT_FALLBACK = "AUTORESUME_NODE_FAULT_FALLBACK";
    public static final String LIVENESS_PORT = "AUTORESUME_LIVENESS_PORT";
    public static final String CHECK_PORT = "AUTORESUME_CHECK_PORT";
    public static final String CONTROLLER_OUTAGE = "AUTORESUME_CONTROLLER_OUTAGE";
    /** How long recovery's requests wait for a restarting agent, in seconds (see {@link #agentOutage}). */
    public static final String AGENT_OUTAGE = "AUTORESUME_AGENT_OUTAGE";

    /** Which budget variables the environment set (blank counts as unset): only their presence matters. */
    public record SetInEnvironment(boolean maxAppRetries, boolean maxNodeRetries, boolean onExhausted) {
        public static final SetInEnvironment NONE = new SetInEnvironment(false, false, false);
    }

    /** Past the budgets: end with the step's status, or have Slurm requeue the whole job. */
    public enum OnExhausted {
        EXIT,
        REQUEUE
    }

    /**
     * When a node fault has no repair left (no in-job spare, no replacement, the budget spent):
     * requeue the job (never worse than Slurm alone, which requeues a job whose node died), or exit.
     */
    public enum NodeFaultFallback {
        REQUEUE,
        EXIT
    }

    public SupervisorSettings {
        if (maxAppRetries < 0) {
            throw new IllegalArgumentException(MAX_APP_RETRIES + " must be 0 or more: " + maxAppRetries);
        }
        if (maxNodeRetries < 0) {
            throw new IllegalArgumentException(MAX_NODE_RETRIES + " must be 0 or more: " + maxNodeRetries);
        }
        if (maxSameFailures < 0 || maxSameFailures == 1) {
            throw new IllegalArgumentException(MAX_SAME_FAILURES
                    + " must be 0 (no limit) or 2 or more (the attempts in a row that may fail the same way): "
                    + maxSameFailures);
        }
        if (replacementTimeout.isNegative()) {
            throw new IllegalArgumentException(REPLACEMENT_TIMEOUT + " must be 0 or more: " + replacementTimeout);
        }
        if (controllerOutage.filter(Duration::isNegative).isPresent()) {
            throw new IllegalArgumentException(
                    CONTROLLER_OUTAGE + " must be 0 or more seconds: " + controllerOutage.get());
        }
        if (replacement.filter(Replacement.SPARE::equals).isPresent() && spares.isEmpty()) {
            throw new IllegalArgumentException(
                    REPLACEMENT + "=spare needs a spare pool: set AUTORESUME_SPARE_PARTITION,"
                            + " AUTORESUME_SPARE_FEATURE or AUTORESUME_SPARE_NODES");
        }
    }

    public static SupervisorSettings fromEnvironment(Map<String, String> env) {
        Optional<String> partition = value(env, "AUTORESUME_SPARE_PARTITION");
        Optional<String> feature = value(env, "AUTORESUME_SPARE_FEATURE");
        Optional<String> nodes = value(env, "AUTORESUME_SPARE_NODES");
        Optional<SparePool> spares = partition.isEmpty() && feature.isEmpty() && nodes.isEmpty()
                ? Optional.empty()
                : Optional.of(new SparePool(partition, feature, nodes));
        Optional<Replacement> replacement = value(env, REPLACEMENT)
                .map(SupervisorSettings::replacement)
                .or(() -> spares.map(s -> Replacement.SPARE));
        OnExhausted onExhausted =
                value(env, ON_EXHAUSTED).map(SupervisorSettings::onExhausted).orElse(OnExhausted.EXIT);
        // Someone who wrote AUTORESUME_ON_EXHAUSTED=exit asked for no requeue at all (docs/log-rules.md).
        NodeFaultFallback fallback = value(env, NODE_FAULT_FALLBACK)
                .map(SupervisorSettings::fallback)
                .orElse(
                        value(env, ON_EXHAUSTED).isPresent() && onExhausted == OnExhausted.EXIT
                                ? NodeFaultFallback.EXIT
                                : NodeFaultFallback.REQUEUE);
        return new SupervisorSettings(
                count(env, MAX_APP_RETRIES, 0),
                count(env, MAX_NODE_RETRIES, 2),
                count(env, MAX_SAME_FAILURES, DEFAULT_MAX_SAME_FAILURES),
                replacement,
                spares,
                Duration.ofSeconds(count(env, REPLACEMENT_TIMEOUT, 300)),
                onExhausted,
                fallback,
                value(env, "AUTORESUME_AGENT_SOCKET").map(Path::of).orElse(AgentClient.DEFAULT_SOCKET),
                JobStateDirectory.locate(env, JobStateDirectory.uid()),
                value(env, CONTROLLER_OUTAGE).map(v -> Duration.ofSeconds(count(env, CONTROLLER_OUTAGE, 0))),
                livenessPort(env),
                checkPort(env),
                agentOutage(env),
                new SetInEnvironment(
                        value(env, MAX_APP_RETRIES).isPresent(),
                        value(env, MAX_NODE_RETRIES).isPresent(),
                        value(env, ON_EXHAUSTED).isPresent()),
                Allocation.fromEnvironment(env));
    }

    private static Replacement replacement(String word) {
        return Replacement.byWord(word)
                .orElseThrow(() -> new IllegalArgumentException(
                        REPLACEMENT + " must be spare, same-hostname, command or reboot: \"" + word + "\""));
    }

    private static OnExhausted onExhausted(String word) {
        try {
            return OnExhausted.valueOf(word.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(ON_EXHAUSTED + " must be exit or requeue: \"" + word + "\"", e);
        }
    }

    private static NodeFaultFallback fallback(String word) {
        try {
            return NodeFaultFallback.valueOf(word.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(NODE_FAULT_FALLBACK + " must be requeue or exit: \"" + word + "\"", e);
        }
    }

    private static Optional<String> value(Map<String, String> env, String name) {
        String raw = env.get(name);
        return raw == null || raw.isBlank() ? Optional.empty() : Optional.of(raw.strip());
    }

    /**
     * The port the nodes' agents answer liveness probes on ({@code autoresume agent --liveness-port});
     * 0 probes slurmd alone.
     */
    public static int livenessPort(Map<String, String> env) {
        int port = count(env, LIVENESS_PORT, LivenessProber.DEFAULT_PORT);
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(LIVENESS_PORT + " must be a port, or 0 for none: " + port);
        }
        return port;
    }

    /**
     * The port the nodes' agents run their GPU checks out of turn on, for a failed attempt's
     * diagnosis ({@code autoresume agent --check-port}); 0 asks for none.
     */
    public static int checkPort(Map<String, String> env) {
        int port = count(env, CHECK_PORT, LivenessProber.DEFAULT_CHECK_PORT);
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(CHECK_PORT + " must be a port, or 0 for none: " + port);
        }
        return port;
    }

    /**
     * How long recovery's requests wait for an agent that is down or restarting
     * ({@code AUTORESUME_AGENT_OUTAGE}, seconds; see {@link AgentOutage}). 0 waits not at all.
     */
    public static Duration agentOutage(Map<String, String> env) {
        int seconds = count(env, AGENT_OUTAGE, (int) AgentOutage.DEFAULT_BOUND.toSeconds());
        if (seconds < 0) {
            throw new IllegalArgumentException(AGENT_OUTAGE + " must be 0 or more seconds: " + seconds);
        }
        return Duration.ofSeconds(seconds);
    }

    private static int count(Map<String, String> env, String name, int fallback) {
        Optional<String> raw = value(env, name);
        if (raw.isEmpty()) {
            return fallback;
        }
        try {
            return Integer.parseInt(raw.get());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number: \"" + env.get(name) + "\"", e);
        }
    }
}
