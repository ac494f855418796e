package org.slurmautoresume.slurm.client;

import java.time.ZoneId;
import java.util.Objects;
import java.util.function.Supplier;
import org.slurmautoresume.slurm.parse.ConfigParser;
import org.slurmautoresume.slurm.parse.JobParser;
import org.slurmautoresume.slurm.parse.NodeParser;
import org.slurmautoresume.slurm.parse.ParseException;
import org.slurmautoresume.slurm.parse.StepParser;
import org.slurmautoresume.slurm.parse.json.JsonJobParser;
import org.slurmautoresume.slurm.parse.json.JsonNodeParser;
import org.slurmautoresume.slurm.parse.json.JsonStepParser;

/**
 * One client's parsers of scontrol's outputs, each made on its first use: a command reads one or
 * two kinds of record, and the text parsers' key tables (hundreds of names, built in the
 * interpreter) cost a short command such as {@code nodes --json} about 4 ms when all were made.
 * The JSON ones also need the zone their epoch seconds are read in: ZoneId.systemDefault() loads
 * the time zone rules (about 40 ms, scanning every jar for providers), which every supervised srun
 * paid before it started, and the text never needs.
 */
final class ScontrolParsers {

    record Json(JsonNodeParser nodes, JsonJobParser jobs, JsonStepParser steps) {}

    private final Supplier<ZoneId> zone;
    private NodeParser nodeText;
    private JobParser jobText;
    private StepParser stepText;
    private ConfigParser configText;
    private volatile Json json;

    ScontrolParsers(Supplier<ZoneId> zone) {
        this.zone = Objects.requireNonNull(zone);
    }

    Json json() {
        Json made = json;
        if (made == null) {
            ZoneId where = zone.get();
            made = new Json(new JsonNodeParser(where), new JsonJobParser(where), new JsonStepParser(where));
            json = made;
        }
        return made;
    }

    synchronized NodeParser nodeText() {
        if (nodeText == null) {
            nodeText = new NodeParser();
        }
        return nodeText;
    }

    synchronized JobParser jobText() {
        if (jobText == null) {
            jobText = new JobParser();
        }
        return jobText;
    }

    synchronized StepParser stepText() {
        if (stepText == null) {
            stepText = new StepParser();
        }
        return stepText;
    }

    synchronized ConfigParser configText() {
        if (configText == null) {
            configText = new ConfigParser();
        }
        return configText;
    }

    interface ParseAction<T> {
        T parse();
    }

    /** What {@code action} parsed; output it cannot read is a BAD_OUTPUT {@link SlurmException} quoting it. */
    static <T> T parse(ParseAction<T> action) {
        try {
            return action.parse();
        } catch (ParseException e) {
            throw new SlurmException(
                    SlurmException.Kind.BAD_OUTPUT, "unexpected scontrol output: " + e.getMessage(), e);
        }
    }
}
