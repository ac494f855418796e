package org.slurmautoresume.lifecycle.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** {@code ClusterConfig} of resource_config.json. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ClusterConfig(
        @JsonProperty("ClusterArn") String clusterArn,
        @JsonProperty("ClusterName") String clusterName) {}
