package org.slurmautoresume.lifecycle.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One instance of a group. {@code CustomerIpAddress} is the address in the customer's network,
 * the one Slurm daemons use; {@code AgentIpAddress} is the platform agent's.
 * {@code Autoresume} is this project's extension (see {@link InstanceOptions}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Instance(
        @JsonProperty("InstanceName") String instanceName,
        @JsonProperty("InstanceId") String instanceId,
        @JsonProperty("CustomerIpAddress") String customerIpAddress,
        @JsonProperty("AgentIpAddress") String agentIpAddress,
        @JsonProperty("Autoresume") InstanceOptions autoresume) {

    public InstanceOptions options() {
        return autoresume == null ? InstanceOptions.NONE : autoresume;
    }

    /** The Slurm node name: the extension's NodeName, else the instance name. */
    public String nodeName() {
        return options().nodeName() != null ? options().nodeName() : instanceName;
    }
}
