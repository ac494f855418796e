package org.slurmautoresume.lifecycle.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * This project's extension of a worker group ({@code worker_groups[i].autoresume}).
 *
 * @param spareCount  the last this-many instances of the group (in resource_config.json order)
 *                    are hot spares: also in the spare partition, and with a higher Weight so the
 *                    scheduler gives them to ordinary jobs last
 * @param nodeOptions Slurm node parameters written on each of the group's NodeName lines as they
 *                    are, e.g. {@code "CPUs=96 RealMemory=1900000 Gres=gpu:8"}; null for none
 */
@JsonInclude(JsonInclude.Include.NON_DEFAULT)
public record WorkerOptions(
        @JsonProperty("spare_count") int spareCount,
        @JsonProperty("node_options") String nodeOptions) {

    public static final WorkerOptions NONE = new WorkerOptions(0, null);
}
