package org.slurmautoresume.nodeops.health;

/** How one check ended. A check whose tool or device is absent is SKIPPED, never FAILED. */
public enum HealthStatus {
    PASSED,
    FAILED,
    SKIPPED
}
