package org.slurmautoresume.lifecycle.validate;

/** An error stops provisioning; a warning is worth reading but the cluster can be built. */
public enum Severity {
    ERROR,
    WARNING
}
