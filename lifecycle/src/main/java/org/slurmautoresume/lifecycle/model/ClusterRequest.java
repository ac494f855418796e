package org.slurmautoresume.lifecycle.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** The parts of the cluster-creation request ({@code create_cluster.json}) the lifecycle cares about. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ClusterRequest(
        @JsonProperty("ClusterName") String clusterName,
        @JsonProperty("InstanceGroups") List<RequestedInstanceGroup> instanceGroups) {

    public ClusterRequest {
        instanceGroups = instanceGroups == null ? List.of() : List.copyOf(instanceGroups);
    }
}
