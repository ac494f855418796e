package org.slurmautoresume.lifecycle.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** One of the request's {@code InstanceGroups}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RequestedInstanceGroup(
        @JsonProperty("InstanceGroupName") String instanceGroupName,
        @JsonProperty("InstanceType") String instanceType,
        @JsonProperty("InstanceCount") Integer instanceCount,
        @JsonProperty("LifeCycleConfig") LifeCycleConfig lifeCycleConfig,
        @JsonProperty("ExecutionRole") String executionRole,
        @JsonProperty("ThreadsPerCore") Integer threadsPerCore) {}
