package org.slurmautoresume.nodeops.xid;

/**
 * One Xid report of the driver: the GPU's PCI address ({@code PCI:dddd:bb:dd}, lower case), the
 * code, and the rest of the message. The rest may hold a process name ({@code name=...}), which a
 * user chooses: it is evidence to show, never something to act on or put in a node's reason.
 */
public record XidEvent(String device, int code, String detail) {

    /** {@code 0000:3b:00} of {@code PCI:0000:3b:00}. */
    public String pciAddress() {
        return device.startsWith("PCI:") ? device.substring(4) : device;
    }
}
