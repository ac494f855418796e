package org.slurmautoresume.supervisor.config;

import static org.slurmautoresume.supervisor.config.FieldReader.absent;
import static org.slurmautoresume.supervisor.config.FieldReader.child;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.slurmautoresume.supervisor.checkpoint.CheckpointLocator;
import org.slurmautoresume.supervisor.checkpoint.CheckpointRule;

/** Reads and checks {@code checkpointMonitoring}: complete checkpoints must keep appearing. */
final class CheckpointSection {

    static final String FIELD = "checkpointMonitoring";
    static final Set<String> FIELDS = Set.of("directory", "marker", "expectedStartCutOffInSeconds",
            "expectedRecurringFrequencyInSeconds");

    private CheckpointSection() {
    }

    /**
     * Checks every field; with {@code complete} (the effective configuration) also what needs the
     * whole section, and returns the rule. Whether a directory is known is up to the step's
     * environment ({@code AUTORESUME_CHECKPOINT_DIR}), so the supervisor checks that.
     */
    static Optional<CheckpointRule> read(JsonNode node, String path, FieldReader in, boolean complete) {
        if (absent(node) || !in.isObjectOrAbsent(node, path)) {
            return Optional.empty();
        }
        int before = in.problemCount();
        in.rejectUnknownFields(node, FIELDS, path);
        Optional<String> directory = in.text(node, "directory", path);
        if (directory.isPresent() && directory.get().isBlank()) {
            in.error(child(path, "directory"), "must not be empty; leave it out to use "
                    + CheckpointLocator.DIR + " of the step's environment");
        }
        Optional<String> marker = in.text(node, "marker", path);
        marker.flatMap(CheckpointLocator::markerProblem).ifPresent(problem -> in.error(child(path, "marker"), problem));
        OptionalLong startCutOff = in.wholeNumber(node, "expectedStartCutOffInSeconds", path, 1);
        OptionalLong recurring = in.wholeNumber(node, "expectedRecurringFrequencyInSeconds", path, 1);
        if (!complete || in.hasErrorsSince(before)) {
            return Optional.empty();
        }
        if (startCutOff.isEmpty() && recurring.isEmpty()) {
            in.warning(path, "this rule can never be violated: give it expectedStartCutOffInSeconds"
                    + " or expectedRecurringFrequencyInSeconds");
        }
        return Optional.of(new CheckpointRule(directory.map(String::strip), marker.map(String::strip), startCutOff,
                recurring));
    }
}
