package org.slurmautoresume.configfile;

/** An error makes the file unusable; a warning is worth reading but the file still loads. */
public enum Severity {
    ERROR,
    WARNING
}
