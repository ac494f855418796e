package org.slurmautoresume.supervisor.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

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

    /**
     * The files a job's configuration comes from (see {@link ConfigLoader}); an option beats its
     * environment variable. Here, not in ConfigLoader, so a supervised srun with no files never
     * loads ConfigLoader, whose Jackson types cost it two more jars to open.
     */
    public static List<ConfigSource> of(
            Optional<Path> siteOption, Optional<Path> jobOption, Map<String, String> environment) {
        List<ConfigSource> sources = new ArrayList<>();
        Optional<Path> site = siteOption.or(() -> env(environment, ConfigLoader.SITE_ENV));
        sources.add(site.map(path -> new ConfigSource(path, "site", true))
                .orElse(new ConfigSource(Path.of(ConfigLoader.DEFAULT_SITE), "site", false)));
        jobOption
                .or(() -> env(environment, ConfigLoader.JOB_ENV))
                .ifPresent(path -> sources.add(new ConfigSource(path, "job", true)));
        return sources;
    }

    private static Optional<Path> env(Map<String, String> environment, String name) {
        String value = environment.get(name);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(Path.of(value.strip()));
    }
}
