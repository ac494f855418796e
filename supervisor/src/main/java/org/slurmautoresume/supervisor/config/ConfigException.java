package org.slurmautoresume.supervisor.config;

import java.util.List;
import java.util.stream.Collectors;
import org.slurmautoresume.configfile.ConfigProblem;

/** A configuration that cannot be used, with every error found (not just the first). */
public class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<ConfigProblem> problems;

    public ConfigException(List<ConfigProblem> problems) {
        super(problems.stream()
                .filter(ConfigProblem::isError)
                .map(ConfigProblem::toString)
                .collect(Collectors.joining("\n")));
        this.problems = List.copyOf(problems);
    }

    /** Errors and warnings, in the order found. */
    public List<ConfigProblem> problems() {
        return problems;
    }
}
