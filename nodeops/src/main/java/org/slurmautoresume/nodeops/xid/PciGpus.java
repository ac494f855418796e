package org.slurmautoresume.nodeops.xid;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Predicate;

/**
 * Whether a PCI address names an NVIDIA device on this node, from sysfs
 * ({@code /sys/bus/pci/devices/0000:3b:00.0/vendor} reads {@code 0x10de}). The driver prints an
 * Xid's address without the function; a GPU is function 0.
 */
public final class PciGpus implements Predicate<String> {

    static final String NVIDIA_VENDOR = "0x10de";

    private final Path devices;

    /** {@code sysfsRoot}: normally {@code /sys}. */
    public PciGpus(Path sysfsRoot) {
        this.devices = sysfsRoot.resolve("bus/pci/devices");
    }

    @Override
    public boolean test(String address) {
        String full = address.contains(".") ? address : address + ".0";
        if (!full.matches("\\p{XDigit}{4}:\\p{XDigit}{2}:\\p{XDigit}{2}\\.[0-7]")) {
            return false;
        }
        try {
            return Files.readString(devices.resolve(full).resolve("vendor"), StandardCharsets.US_ASCII)
                    .strip()
                    .equalsIgnoreCase(NVIDIA_VENDOR);
        } catch (IOException e) {
            return false;
        }
    }
}
