package org.slurmautoresume.lifecycle.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** One entry of {@code worker_groups}: an instance group whose instances are compute nodes of a partition. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WorkerGroup(
        @JsonProperty("instance_group_name") String instanceGroupName,
        @JsonProperty("partition_name") String partitionName,
        @JsonProperty("autoresume") WorkerOptions autoresume) {

    public WorkerOptions options() {
        return autoresume == null ? WorkerOptions.NONE : autoresume;
    }
}
