package org.slurmautoresume.bridge.step;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.bridge.agent.AgentClient;
import org.slurmautoresume.bridge.recovery.SparePool;

/**
 * How the supervisor behaves, read from its environment. Configuration files come later
 * (restart policy, log rules); these are the knobs that exist today.
 *
 * @param maxAppRetries  how often a step that failed on healthy nodes is re-run in place
 *                       ({@code AUTORESUME_MAX_APP_RETRIES}, default 0: never)
 * @param maxNodeRetries how often a step is re-run after its nodes were replaced
 *                       ({@code AUTORESUME_MAX_NODE_RETRIES}, default 2)
 * @param spares         where replacements come from ({@code AUTORESUME_SPARE_PARTITION},
 *                       {@code AUTORESUME_SPARE_FEATURE}, {@code AUTORESUME_SPARE_NODES}); without
 *                       one, node faults are reported and not repaired
 * @param agentSocket    the privileged agent's socket ({@code AUTORESUME_AGENT_SOCKET})
 * @param stateDir       where the once-per-job preflight marker lives ({@code TMPDIR}, default /tmp)
 */
public record SupervisorSettings(int maxAppRetries, int maxNodeRetries, Optional<SparePool> spares,
                                 Path agentSocket, Path stateDir) {

    public static final String MAX_APP_RETRIES = "AUTORESUME_MAX_APP_RETRIES";
    public static final String MAX_NODE_RETRIES = "AUTORESUME_MAX_NODE_RETRIES";

    public SupervisorSettings {
        if (maxAppRetries < 0) {
            throw new IllegalArgumentException(MAX_APP_RETRIES + " must be 0 or more: " + maxAppRetries);
        }
        if (maxNodeRetries < 0) {
            throw new IllegalArgumentException(MAX_NODE_RETRIES + " must be 0 or more: " + maxNodeRetries);
        }
    }

    public static SupervisorSettings fromEnvironment(Map<String, String> env) {
        Optional<String> partition = value(env, "AUTORESUME_SPARE_PARTITION");
        Optional<String> feature = value(env, "AUTORESUME_SPARE_FEATURE");
        Optional<String> nodes = value(env, "AUTORESUME_SPARE_NODES");
        Optional<SparePool> spares = partition.isEmpty() && feature.isEmpty() && nodes.isEmpty() ? Optional.empty()
                : Optional.of(new SparePool(partition, feature, nodes));
        String tmp = env.getOrDefault("TMPDIR", "/tmp");
        return new SupervisorSettings(count(env, MAX_APP_RETRIES, 0), count(env, MAX_NODE_RETRIES, 2), spares,
                value(env, "AUTORESUME_AGENT_SOCKET").map(Path::of).orElse(AgentClient.DEFAULT_SOCKET),
                Path.of(tmp.isBlank() ? "/tmp" : tmp));
    }

    private static Optional<String> value(Map<String, String> env, String name) {
        String raw = env.get(name);
        return raw == null || raw.isBlank() ? Optional.empty() : Optional.of(raw.strip());
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
