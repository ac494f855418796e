package org.slurmautoresume.supervisor.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A configuration file to read and why.
 *
 * @param path     the file
 * @param role     "site" or "job", for messages
 * @param required false only for the default site file, which an installation may not have
 */
public record ConfigSource(Path path, String role, boolean required) {

    public ConfigSource {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(role, "role");
    }
}
