package org.slurmautoresume.supervisor.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slurmautoresume.supervisor.checkpoint.CheckpointRule;
import org.slurmautoresume.supervisor.policy.RestartPolicy;
import org.slurmautoresume.supervisor.rules.LogRule;

/**
 * The effective configuration of a job: its restart policy, its log rules and its checkpoint
 * rule (empty when {@code checkpointMonitoring} is not configured).
 */
public record AutoresumeConfig(RestartPolicy policy, List<LogRule> rules,
                               Optional<CheckpointRule> checkpointMonitoring) {

    public static final AutoresumeConfig DEFAULT = new AutoresumeConfig(RestartPolicy.DEFAULT, List.of());

    public AutoresumeConfig {
        rules = List.copyOf(rules);
        Objects.requireNonNull(checkpointMonitoring, "checkpointMonitoring");
    }

    /** A configuration without a checkpoint rule. */
    public AutoresumeConfig(RestartPolicy policy, List<LogRule> rules) {
        this(policy, rules, Optional.empty());
    }
}
