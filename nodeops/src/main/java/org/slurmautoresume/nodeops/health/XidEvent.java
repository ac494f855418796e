package org.slurmautoresume.nodeops.health;

/** One NVRM Xid line of the kernel log: the GPU's PCI address as printed, the code, the rest of the line. */
public record XidEvent(String device, int code, String detail) {
}
