package org.slurmautoresume.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;

/**
 * A site health check for the agent's {@code --health-command}: a node is unhealthy (reboot-class,
 * exit 8, with an Xid as its evidence) while a flag file names it. One per test class.
 */
final class FlaggedHealthCheck implements AutoCloseable {

    private final Path dir;

    private FlaggedHealthCheck(Path dir) {
        this.dir = dir;
    }

    static FlaggedHealthCheck create(LocalCluster cluster, String prefix) throws IOException {
        Path dir = Files.createTempDirectory(cluster.clusterDir(), prefix);
        Path check = dir.resolve("check.sh");
        Files.writeString(
                check,
                "#!/bin/bash\nif [ -e '" + dir + "'/unhealthy-\"$1\" ]; then\n"
                        + "  echo \"Xid 79 on GPU 0 of $1\" >&2; exit 8\nfi\n");
        Files.setPosixFilePermissions(check, PosixFilePermissions.fromString("rwxr-xr-x"));
        return new FlaggedHealthCheck(dir);
    }

    /** The program to hand the agent. */
    Path command() {
        return dir.resolve("check.sh");
    }

    /** The flag that makes {@code node} unhealthy while it exists. */
    Path flag(String node) {
        return dir.resolve("unhealthy-" + node);
    }

    @Override
    public void close() {
        try (var files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
