package org.slurmautoresume.supervisor.config;

import static org.slurmautoresume.supervisor.config.FieldReader.absent;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slurmautoresume.supervisor.checkpoint.CheckpointRule;
import org.slurmautoresume.supervisor.policy.RestartPolicy;
import org.slurmautoresume.supervisor.rules.LogRule;

/**
 * Checks a configuration tree against the shape users know from {@code runPolicy}:
 *
 * <pre>
 * runPolicy:
 *   jobMaxRetryCount: 10
 *   restartPolicy: {numRestartBeforeFullJobRestart: 3, evalPeriodSeconds: 21600, maxFullJobRestarts: 1}
 *   recoverStrategy: [dump, retry, recover, requeue, exit]
 *   dump: {signal: SIGUSR1, gracePeriodSeconds: 120}
 *   logMonitoringConfiguration: [ {name: ..., logPattern: ...}, ... ]
 *   checkpointMonitoring: {directory: ..., expectedRecurringFrequencyInSeconds: 1800}
 * </pre>
 */
final class ConfigValidator {

    static final Set<String> TOP_FIELDS = Set.of("runPolicy");
    static final Set<String> RUN_POLICY_FIELDS = Set.of("jobMaxRetryCount", "cleanPodPolicy", "restartPolicy",
            "recoverStrategy", "dump", RuleSection.FIELD, CheckpointSection.FIELD);

    private ConfigValidator() {
    }

    /** Field-by-field checks of one file, which may be partial (a per-job file refining the site's). */
    static void checkFile(JsonNode root, FieldReader in) {
        walk(root, in, false, Map.of());
    }

    /**
     * Checks the effective (merged) tree as a whole and builds the configuration from it; call
     * only when every file passed {@link #checkFile}. Returns null when it found errors.
     */
    static AutoresumeConfig build(JsonNode root, FieldReader in, Map<String, String> ruleOrigins) {
        int before = in.problemCount();
        AutoresumeConfig config = walk(root, in, true, ruleOrigins);
        return in.hasErrorsSince(before) ? null : config;
    }

    private static AutoresumeConfig walk(JsonNode root, FieldReader in, boolean complete, Map<String, String> origins) {
        if (absent(root)) {
            return AutoresumeConfig.DEFAULT;
        }
        if (!root.isObject()) {
            in.error("", "expected a mapping with runPolicy at the top, found " + FieldReader.describe(root));
            return null;
        }
        in.rejectUnknownFields(root, TOP_FIELDS, "");
        JsonNode runPolicy = root.get("runPolicy");
        if (absent(runPolicy) || !in.isObjectOrAbsent(runPolicy, "runPolicy")) {
            return AutoresumeConfig.DEFAULT;
        }
        in.rejectUnknownFields(runPolicy, RUN_POLICY_FIELDS, "runPolicy");
        RestartPolicy policy = PolicySection.read(runPolicy, "runPolicy", in, complete);
        List<LogRule> rules = RuleSection.read(runPolicy.get(RuleSection.FIELD), "runPolicy." + RuleSection.FIELD,
                in, complete, origins);
        Optional<CheckpointRule> checkpoints = CheckpointSection.read(runPolicy.get(CheckpointSection.FIELD),
                "runPolicy." + CheckpointSection.FIELD, in, complete);
        return new AutoresumeConfig(policy, rules, checkpoints);
    }
}
