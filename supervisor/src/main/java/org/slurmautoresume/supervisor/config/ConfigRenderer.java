package org.slurmautoresume.supervisor.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slurmautoresume.supervisor.checkpoint.CheckpointRule;
import org.slurmautoresume.supervisor.policy.RestartPolicy;
import org.slurmautoresume.supervisor.policy.Strategy;
import org.slurmautoresume.supervisor.rules.LogRule;

/**
 * Writes an effective configuration back in the shape it is read in, with every default
 * spelled out: the output of {@code autoresume config show} is itself a valid file.
 */
public final class ConfigRenderer {

    private static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .build());

    private ConfigRenderer() {}

    public static Map<String, Object> toMap(AutoresumeConfig config) {
        RestartPolicy policy = config.policy();
        Map<String, Object> runPolicy = new LinkedHashMap<>();
        runPolicy.put("jobMaxRetryCount", policy.jobMaxRetryCount());
        Map<String, Object> restart = new LinkedHashMap<>();
        policy.numRestartBeforeFullJobRestart().ifPresent(n -> restart.put("numRestartBeforeFullJobRestart", n));
        policy.evalPeriodSeconds().ifPresent(s -> restart.put("evalPeriodSeconds", s));
        restart.put("maxFullJobRestarts", policy.maxFullJobRestarts());
        runPolicy.put("restartPolicy", restart);
        runPolicy.put(
                "recoverStrategy",
                policy.strategies().stream().map(Strategy::configName).toList());
        Map<String, Object> dump = new LinkedHashMap<>();
        dump.put("signal", policy.dump().signal().displayName());
        dump.put("gracePeriodSeconds", policy.dump().gracePeriod().toSeconds());
        runPolicy.put("dump", dump);
        runPolicy.put(
                RuleSection.FIELD,
                config.rules().stream().map(ConfigRenderer::rule).toList());
        config.checkpointMonitoring().ifPresent(rule -> runPolicy.put(CheckpointSection.FIELD, checkpoints(rule)));
        config.heartbeat().ifPresent(beat -> {
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("startupTimeoutSeconds", beat.startupTimeoutSeconds());
            fields.put("steadyTimeoutSeconds", beat.steadyTimeoutSeconds());
            fields.put("checkpointTimeoutSeconds", beat.checkpointTimeoutSeconds());
            runPolicy.put(HeartbeatSection.FIELD, fields);
        });
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("runPolicy", runPolicy);
        return root;
    }

    public static String yaml(AutoresumeConfig config) {
        try {
            return YAML.writeValueAsString(toMap(config));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A directory or marker left out stays out: their defaults come from the step's environment,
     * and spelling one out here would make this output override it.
     */
    private static Map<String, Object> checkpoints(CheckpointRule rule) {
        Map<String, Object> fields = new LinkedHashMap<>();
        rule.directory().ifPresent(d -> fields.put("directory", d));
        rule.marker().ifPresent(m -> fields.put("marker", m));
        rule.expectedStartCutOffInSeconds().ifPresent(s -> fields.put("expectedStartCutOffInSeconds", s));
        rule.expectedRecurringFrequencyInSeconds().ifPresent(s -> fields.put("expectedRecurringFrequencyInSeconds", s));
        return fields;
    }

    private static Map<String, Object> rule(LogRule rule) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("name", rule.name());
        fields.put("logPattern", rule.logPattern());
        rule.stopPattern().ifPresent(p -> fields.put("stopPattern", p));
        rule.expectedStartCutOffInSeconds().ifPresent(s -> fields.put("expectedStartCutOffInSeconds", s));
        rule.expectedRecurringFrequencyInSeconds().ifPresent(s -> fields.put("expectedRecurringFrequencyInSeconds", s));
        rule.metricThreshold().ifPresent(t -> fields.put("metricThreshold", t));
        rule.operator().ifPresent(o -> fields.put("operator", o.configName()));
        if (rule.hasMetric()) {
            fields.put("metricEvaluationDataPoints", rule.metricEvaluationDataPoints());
        }
        return fields;
    }
}
