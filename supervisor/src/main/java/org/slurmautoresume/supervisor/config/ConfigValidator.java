package org.slurmautoresume.supervisor.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slurmautoresume.configfile.ConfigFields;
import org.slurmautoresume.configfile.Field;
import org.slurmautoresume.configfile.Problems;
import org.slurmautoresume.supervisor.checkpoint.CheckpointRule;
import org.slurmautoresume.supervisor.policy.RestartPolicy;
import org.slurmautoresume.supervisor.rules.Heartbeat;
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
 *   heartbeat: {startupTimeoutSeconds: 600, steadyTimeoutSeconds: 300, checkpointTimeoutSeconds: 1800}
 * </pre>
 */
final class ConfigValidator {

    static final Set<String> RUN_POLICY_FIELDS = Set.of(
            "jobMaxRetryCount",
            "cleanPodPolicy",
            "restartPolicy",
            "recoverStrategy",
            "dump",
            RuleSection.FIELD,
            CheckpointSection.FIELD,
            HeartbeatSection.FIELD);

    private ConfigValidator() {}

    /** Field-by-field checks of one file, which may be partial (a per-job file refining the site's). */
    static void checkFile(JsonNode root, Problems problems) {
        walk(root, problems, false, Map.of());
    }

    /**
     * Checks the effective (merged) tree as a whole and builds the configuration from it; call
     * only when every file passed {@link #checkFile}. Returns null when it found errors.
     */
    static AutoresumeConfig build(JsonNode root, Problems problems, Map<String, String> ruleOrigins) {
        int mark = problems.mark();
        AutoresumeConfig config = walk(root, problems, true, ruleOrigins);
        return problems.hasErrorsSince(mark) ? null : config;
    }

    private static AutoresumeConfig walk(
            JsonNode root, Problems problems, boolean complete, Map<String, String> origins) {
        if (ConfigFields.isAbsent(root)) {
            return AutoresumeConfig.DEFAULT;
        }
        Optional<ConfigFields> top =
                ConfigFields.of(root, problems.root(), problems, "a mapping with runPolicy at the top");
        if (top.isEmpty()) {
            return null;
        }
        Field runPolicyField = top.get().field("runPolicy");
        top.get().rejectUnknown();
        Optional<ConfigFields> maybe = runPolicyField.object();
        if (maybe.isEmpty()) {
            return AutoresumeConfig.DEFAULT;
        }
        ConfigFields runPolicy = maybe.get();
        runPolicy.accept(RUN_POLICY_FIELDS);
        runPolicy.rejectUnknown();
        RestartPolicy policy = PolicySection.read(runPolicy, complete);
        List<LogRule> rules = RuleSection.read(runPolicy.field(RuleSection.FIELD), problems, complete, origins);
        Optional<CheckpointRule> checkpoints =
                CheckpointSection.read(runPolicy.field(CheckpointSection.FIELD), complete);
        Optional<Heartbeat> heartbeat = HeartbeatSection.read(runPolicy.field(HeartbeatSection.FIELD), complete);
        if (heartbeat.isPresent() && rules.stream().anyMatch(r -> r.name().equals(Heartbeat.NAME))) {
            runPolicy.error(
                    HeartbeatSection.FIELD,
                    "a rule of logMonitoringConfiguration is already named \"" + Heartbeat.NAME
                            + "\", the heartbeat's name in every report: rename that rule");
        }
        return new AutoresumeConfig(policy, rules, checkpoints, heartbeat);
    }
}
