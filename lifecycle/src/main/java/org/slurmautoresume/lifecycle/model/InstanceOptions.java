package org.slurmautoresume.lifecycle.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * This project's extension of one instance ({@code Instances[i].Autoresume}), for clusters where
 * the platform's defaults do not fit, such as several slurmd on one host (the local cluster).
 *
 * @param nodeName     Slurm NodeName (default: InstanceName)
 * @param nodeHostname Slurm NodeHostname (default: none, i.e. Slurm's default, the NodeName)
 * @param port         the slurmd port (Slurm's Port=; default: none, i.e. SlurmdPort)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record InstanceOptions(
        @JsonProperty("NodeName") String nodeName,
        @JsonProperty("NodeHostname") String nodeHostname,
        @JsonProperty("Port") Integer port) {

    public static final InstanceOptions NONE = new InstanceOptions(null, null, null);
}
