package org.slurmautoresume.supervisor.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.configfile.ConfigProblem;

/**
 * What reading a job's configuration files gave: the effective configuration when there was
 * no error, and every problem found (errors and warnings, in file order).
 *
 * @param files    the files actually read, most general first
 * @param config   present exactly when there is no error
 * @param problems errors and warnings
 */
public record ConfigResult(List<Path> files, Optional<AutoresumeConfig> config, List<ConfigProblem> problems) {

    public ConfigResult {
        files = List.copyOf(files);
        problems = List.copyOf(problems);
    }

    public boolean ok() {
        return config.isPresent();
    }

    public List<ConfigProblem> errors() {
        return problems.stream().filter(ConfigProblem::isError).toList();
    }

    public List<ConfigProblem> warnings() {
        return problems.stream().filter(p -> !p.isError()).toList();
    }

    /** The configuration, or a {@link ConfigException} carrying every problem. */
    public AutoresumeConfig orThrow() {
        return config.orElseThrow(() -> new ConfigException(problems));
    }
}
