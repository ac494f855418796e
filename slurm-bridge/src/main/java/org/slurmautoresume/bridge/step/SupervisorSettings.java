package org.slurmautoresume.bridge.step;

import java.nio.file.Path;
import java.util.Map;

/**
 * How the supervisor behaves, read from its environment. Configuration files come later
 * (restart policy, log rules); these are the knobs that exist today.
 *
 * @param maxAppRetries how often a step that failed on healthy nodes is re-run in place
 *                      ({@code AUTORESUME_MAX_APP_RETRIES}, default 0: never)
 * @param stateDir      where the once-per-job preflight marker lives ({@code TMPDIR}, default /tmp)
 */
public record SupervisorSettings(int maxAppRetries, Path stateDir) {

    public static final String MAX_APP_RETRIES = "AUTORESUME_MAX_APP_RETRIES";

    public SupervisorSettings {
        if (maxAppRetries < 0) {
            throw new IllegalArgumentException(MAX_APP_RETRIES + " must be 0 or more: " + maxAppRetries);
        }
    }

    public static SupervisorSettings fromEnvironment(Map<String, String> env) {
        int retries = 0;
        String raw = env.get(MAX_APP_RETRIES);
        if (raw != null && !raw.isBlank()) {
            try {
                retries = Integer.parseInt(raw.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(MAX_APP_RETRIES + " must be a whole number: \"" + raw + "\"", e);
            }
        }
        String tmp = env.getOrDefault("TMPDIR", "/tmp");
        return new SupervisorSettings(retries, Path.of(tmp.isBlank() ? "/tmp" : tmp));
    }
}
