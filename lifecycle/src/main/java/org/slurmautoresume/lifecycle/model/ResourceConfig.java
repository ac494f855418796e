package org.slurmautoresume.lifecycle.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Optional;

/**
 * {@code resource_config.json}, which the platform writes on every instance (by default
 * {@code /opt/ml/config/resource_config.json}, or {@code $SAGEMAKER_RESOURCE_CONFIG_PATH}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ResourceConfig(
        @JsonProperty("ClusterConfig") ClusterConfig clusterConfig,
        @JsonProperty("InstanceGroups") List<InstanceGroup> instanceGroups) {

    public static final String FILE_NAME = "resource_config.json";
    public static final String DEFAULT_PATH = "/opt/ml/config/resource_config.json";
    public static final String PATH_VARIABLE = "SAGEMAKER_RESOURCE_CONFIG_PATH";

    public ResourceConfig {
        instanceGroups = instanceGroups == null ? List.of() : List.copyOf(instanceGroups);
    }

    public Optional<InstanceGroup> group(String name) {
        return instanceGroups.stream()
                .filter(g -> g.name() != null && g.name().equals(name))
                .findFirst();
    }
}
