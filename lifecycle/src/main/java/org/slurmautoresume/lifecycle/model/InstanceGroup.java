package org.slurmautoresume.lifecycle.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** One of resource_config.json's {@code InstanceGroups}: the instances the platform started for a group. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record InstanceGroup(
        @JsonProperty("Name") String name,
        @JsonProperty("InstanceType") String instanceType,
        @JsonProperty("Instances") List<Instance> instances) {

    public InstanceGroup {
        instances = instances == null ? List.of() : List.copyOf(instances);
    }
}
