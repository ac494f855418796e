package org.slurmautoresume.agent.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** A process's {@code /proc/PID/status}, as the kernel writes it: one {@code Name:\tvalue} line per field. */
public final class ProcStatus {

    /** This process's. */
    public static final Path SELF = Path.of("/proc/self/status");

    private ProcStatus() {}

    /** The value of field {@code name} (without its colon), stripped; empty when the file or the field is not there. */
    public static Optional<String> field(Path status, String name) {
        String prefix = name + ":";
        try (BufferedReader reader = Files.newBufferedReader(status, StandardCharsets.US_ASCII)) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.startsWith(prefix)) {
                    return Optional.of(line.substring(prefix.length()).strip());
                }
            }
        } catch (IOException | RuntimeException e) {
            // No /proc (another system, a sandbox): the caller has its fallback.
        }
        return Optional.empty();
    }
}
