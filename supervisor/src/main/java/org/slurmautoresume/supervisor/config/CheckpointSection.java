package org.slurmautoresume.supervisor.config;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.slurmautoresume.configfile.ConfigFields;
import org.slurmautoresume.configfile.Field;
import org.slurmautoresume.supervisor.checkpoint.CheckpointLocator;
import org.slurmautoresume.supervisor.checkpoint.CheckpointRule;

/** Reads and checks {@code checkpointMonitoring}: complete checkpoints must keep appearing. */
final class CheckpointSection {

    static final String FIELD = "checkpointMonitoring";
    static final Set<String> FIELDS =
            Set.of("directory", "marker", "expectedStartCutOffInSeconds", "expectedRecurringFrequencyInSeconds");

    private CheckpointSection() {}

    /**
     * Checks every field; with {@code complete} (the effective configuration) also what needs the
     * whole section, and returns the rule. Whether a directory is known is up to the step's
     * environment ({@code AUTORESUME_CHECKPOINT_DIR}), so the supervisor checks that.
     */
    static Optional<CheckpointRule> read(Field field, boolean complete) {
        Optional<ConfigFields> maybe = field.object();
        if (maybe.isEmpty()) {
            return Optional.empty();
        }
        ConfigFields in = maybe.get();
        int mark = in.problems().mark();
        in.only(FIELDS);
        Optional<String> directory = in.text("directory");
        if (directory.isPresent() && directory.get().isBlank()) {
            in.error(
                    "directory",
                    "must not be empty; leave it out to use " + CheckpointLocator.DIR + " of the step's environment");
        }
        Optional<String> marker = in.text("marker");
        marker.flatMap(CheckpointLocator::markerProblem).ifPresent(problem -> in.error("marker", problem));
        OptionalLong startCutOff = in.wholeNumber("expectedStartCutOffInSeconds", 1, Integer.MAX_VALUE);
        OptionalLong recurring = in.wholeNumber("expectedRecurringFrequencyInSeconds", 1, Integer.MAX_VALUE);
        if (!complete || in.problems().hasErrorsSince(mark)) {
            return Optional.empty();
        }
        if (startCutOff.isEmpty() && recurring.isEmpty()) {
            in.problems()
                    .warning(
                            in.path(),
                            "this rule can never be violated: give it expectedStartCutOffInSeconds"
                                    + " or expectedRecurringFrequencyInSeconds");
        }
        return Optional.of(
                new CheckpointRule(directory.map(String::strip), marker.map(String::strip), startCutOff, recurring));
    }
}
