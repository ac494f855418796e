package org.slurmautoresume.nodeops.health;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The Slurm name of the node this runs on: slurmd sets SLURMD_NODENAME for its
 * HealthCheckProgram; otherwise the short host name, which is the node name wherever
 * NodeName equals the host name (the usual setup, and HyperPod's).
 */
public final class LocalNode {

    private LocalNode() {}

    public static Optional<String> name(Map<String, String> environment) {
        String fromSlurmd = environment.get("SLURMD_NODENAME");
        if (fromSlurmd != null && !fromSlurmd.isBlank()) {
            return Optional.of(fromSlurmd.strip());
        }
        Optional<String> hostname = hostname(); // no method reference: a lambda spun at each start
        return hostname.isPresent() ? Optional.of(shortName(hostname.get())) : hostname;
    }

    static String shortName(String hostname) {
        int dot = hostname.indexOf('.');
        return dot > 0 ? hostname.substring(0, dot) : hostname;
    }

    private static Optional<String> hostname() {
        try {
            String name = Files.readString(Path.of("/proc/sys/kernel/hostname"), StandardCharsets.UTF_8)
                    .strip();
            if (!name.isEmpty()) {
                return Optional.of(name);
            }
        } catch (IOException e) {
            // not Linux, or /proc hidden: ask the resolver
        }
        try {
            return Optional.of(InetAddress.getLocalHost().getHostName());
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
