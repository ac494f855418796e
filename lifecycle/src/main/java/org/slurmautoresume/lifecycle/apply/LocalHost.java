package org.slurmautoresume.lifecycle.apply;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/** What this machine is called and where it listens; tests supply their own. */
public interface LocalHost {

    Path KERNEL_HOSTNAME = Path.of("/proc/sys/kernel/hostname");

    /** Every address of every interface, in {@link InetAddress#getHostAddress()} form. */
    List<String> addresses();

    /** The host name, short or long; empty when it cannot be had. */
    Optional<String> hostname();

    static LocalHost system() {
        return new LocalHost() {
            @Override
            public List<String> addresses() {
                try {
                    return Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                            .flatMap(NetworkInterface::inetAddresses)
                            .map(InetAddress::getHostAddress)
                            .toList();
                } catch (SocketException e) {
                    throw new ApplyException("cannot list this machine's network interfaces: " + e.getMessage(), e);
                }
            }

            /** The kernel's name for this host: no resolver involved, so a broken DNS cannot stall apply. */
            @Override
            public Optional<String> hostname() {
                try {
                    return Optional.of(Files.readString(KERNEL_HOSTNAME).strip())
                            .filter(s -> !s.isEmpty());
                } catch (IOException e) {
                    return Optional.empty();
                }
            }
        };
    }
}
