package org.slurmautoresume.nodeops.sweep;

import java.util.List;
import java.util.stream.Collectors;
import org.slurmautoresume.configfile.ConfigProblem;

/** A policy file that cannot be used; the message has one line per error: file, field and why. */
public final class SweepPolicyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<ConfigProblem> problems;

    public SweepPolicyException(List<ConfigProblem> problems) {
        super(problems.stream()
                .filter(ConfigProblem::isError)
                .map(ConfigProblem::toString)
                .collect(Collectors.joining("\n")));
        this.problems = List.copyOf(problems);
    }

    /** Every problem found, in file order. */
    public List<ConfigProblem> problems() {
        return problems;
    }
}
