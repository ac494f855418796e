package org.slurmautoresume.supervisor.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slurmautoresume.supervisor.checkpoint.CheckpointRule;
import org.slurmautoresume.supervisor.policy.RestartPolicy;
import org.slurmautoresume.supervisor.rules.Heartbeat;
import org.slurmautoresume.supervisor.rules.LogRule;

/**
 * The effective configuration of a job: its restart policy, its log rules, its checkpoint rule
 * (empty when {@code checkpointMonitoring} is not configured) and its heartbeat (empty when
 * {@code heartbeat} is not).
 */
public record AutoresumeConfig(
        RestartPolicy policy,
        List<LogRule> rules,
        Optional<CheckpointRule> checkpointMonitoring,
        Optional<Heartbeat> heartbeat) {

    public static final AutoresumeConfig DEFAULT = new AutoresumeConfig(RestartPolicy.DEFAULT, List.of());

    public AutoresumeConfig {
        rules = List.copyOf(rules);
        Objects.requireNonNull(checkpointMonitoring, "checkpointMonitoring");
        Objects.requireNonNull(heartbeat, "heartbeat");
    }

    /** A configuration without a heartbeat. */
    public AutoresumeConfig(RestartPolicy policy, List<LogRule> rules, Optional<CheckpointRule> checkpointMonitoring) {
        this(policy, rules, checkpointMonitoring, Optional.empty());
    }

    /** A configuration without a checkpoint rule or a heartbeat. */
    public AutoresumeConfig(RestartPolicy policy, List<LogRule> rules) {
        this(policy, rules, Optional.empty());
    }

    /** The log rules a step is watched by: the configured ones and the heartbeat's. */
    public List<LogRule> watchedRules() {
        if (heartbeat.isEmpty()) {
            return rules;
        }
        List<LogRule> all = new ArrayList<>(rules);
        all.add(heartbeat.get().rule());
        return List.copyOf(all);
    }
}
