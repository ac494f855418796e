package org.slurmautoresume.bridge.config;

import java.util.List;
import org.slurmautoresume.bridge.policy.RestartPolicy;
import org.slurmautoresume.bridge.rules.LogRule;

/** The effective configuration of a job: its restart policy and its log rules. */
public record AutoresumeConfig(RestartPolicy policy, List<LogRule> rules) {

    public static final AutoresumeConfig DEFAULT = new AutoresumeConfig(RestartPolicy.DEFAULT, List.of());

    public AutoresumeConfig {
        rules = List.copyOf(rules);
    }
}
