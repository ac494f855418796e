package org.slurmautoresume.agent.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;
import org.slurmautoresume.nodeops.xid.KernelRecordSource;
import org.slurmautoresume.nodeops.xid.PciGpus;
import org.slurmautoresume.nodeops.xid.XidWatch;

/**
 * Which kernel log the agent watches for its node's Xids ({@code --xid-source}): {@code auto}
 * watches {@code /dev/kmsg} where the NVIDIA driver is loaded and nothing elsewhere, {@code off}
 * nothing, {@code /dev/kmsg} that device, any other path a root-only file of records in the same
 * format (a simulated node's kernel log). Addresses in the kernel's own log must name an NVIDIA
 * device in this node's sysfs; a file stands for another machine, so its addresses cannot be.
 */
public final class NodeXidWatch {

    public static final String AUTO = "auto";
    public static final String OFF = "off";
    static final Path KMSG = Path.of("/dev/kmsg");
    static final Path NVIDIA_DRIVER = Path.of("/proc/driver/nvidia");
    static final Duration FILE_POLL = Duration.ofMillis(100);

    private NodeXidWatch() {}

    /** The started watch, or empty when {@code source} says none (the reason is logged by the caller). */
    public static Optional<XidWatch> start(String source, Path sysfsRoot, XidWatch.Listener listener)
            throws IOException {
        Optional<Path> path = resolve(source);
        if (path.isEmpty()) {
            return Optional.empty();
        }
        KernelRecordSource records;
        Predicate<String> isGpu;
        if (path.get().equals(KMSG)) {
            records = KernelRecordSource.kmsg(KMSG);
            isGpu = new PciGpus(sysfsRoot);
        } else {
            records = KernelRecordSource.followFile(path.get(), FILE_POLL);
            isGpu = address -> true;
        }
        XidWatch watch = new XidWatch(records, isGpu, listener);
        watch.start();
        return Optional.of(watch);
    }

    /** {@code auto} → /dev/kmsg when the NVIDIA driver is loaded; {@code off} → none; else the path. */
    public static Optional<Path> resolve(String source) {
        if (source.equals(OFF)) {
            return Optional.empty();
        }
        if (source.equals(AUTO)) {
            return Files.exists(NVIDIA_DRIVER) ? Optional.of(KMSG) : Optional.empty();
        }
        return Optional.of(Path.of(source));
    }
}
