package org.slurmautoresume.lifecycle.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * This project's extension of provisioning_parameters.json (top-level {@code autoresume}).
 *
 * @param sparePartition      name of the partition that marks hot spares (the supervisor's
 *                            {@code AUTORESUME_SPARE_PARTITION}); default {@code spare}
 * @param healthCheckInterval Slurm's HealthCheckInterval in seconds; 0 writes no health check
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SiteOptions(
        @JsonProperty("spare_partition") String sparePartition,
        @JsonProperty("health_check_interval") Integer healthCheckInterval) {

    public static final String DEFAULT_SPARE_PARTITION = "spare";
    public static final int DEFAULT_HEALTH_CHECK_INTERVAL = 300;
    public static final SiteOptions DEFAULTS = new SiteOptions(null, null);

    public String sparePartitionName() {
        return sparePartition == null ? DEFAULT_SPARE_PARTITION : sparePartition;
    }

    public int healthCheckSeconds() {
        return healthCheckInterval == null ? DEFAULT_HEALTH_CHECK_INTERVAL : healthCheckInterval;
    }
}
