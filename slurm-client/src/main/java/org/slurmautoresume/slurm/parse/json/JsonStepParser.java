package org.slurmautoresume.slurm.parse.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.hostlist.HostlistException;
import org.slurmautoresume.slurm.model.Step;

/**
 * Parses {@code scontrol --json show step} (Slurm 23.02 and later) into the same {@link Step}
 * values the text parser gives. The step id is an object {@code {"job_id", "step_id"}} in
 * v0.0.39 and a string {@code "9.batch"} from v0.0.40 on; times, srun and tres are nested
 * ({@code time.start}, {@code srun.host}).
 */
public final class JsonStepParser {

    private final ZoneId zone;

    /** Reads times in the system's zone, as scontrol's text does. */
    public JsonStepParser() {
        this(ZoneId.systemDefault());
    }

    public JsonStepParser(ZoneId zone) {
        this.zone = Objects.requireNonNull(zone);
    }

    public List<Step> parseAll(String output) {
        List<Step> steps = new ArrayList<>();
        for (JsonNode record : JsonDocument.records(output, "steps")) {
            steps.add(parse(record));
        }
        return steps;
    }

    Step parse(JsonNode record) {
        JsonFields f = new JsonFields(record);
        String fullId = fullId(f);
        int dot = fullId.indexOf('.');
        if (dot <= 0 || dot == fullId.length() - 1) {
            throw f.error("step id is not JOB.STEP");
        }
        String nodes = f.text("nodes");
        OptionalInt srunPid = f.integer("srun", "pid");
        return new Step(
                fullId.substring(0, dot),
                fullId.substring(dot + 1),
                f.text("name"),
                JsonJobStates.word(f.get("state")),
                nodes,
                nodeCount(nodes),
                f.integer("number_tasks"),
                f.time(zone, "time", "start"),
                f.optional("srun", "host"),
                srunPid,
                f.raw());
    }

    private static String fullId(JsonFields f) {
        JsonNode id = f.get("id");
        if (id.isObject()) {
            String job = JsonFields.text(id.get("job_id")).orElse("");
            String step = JsonFields.text(id.get("step_id")).orElse("");
            String component = JsonFields.text(id.get("step_het_component"))
                    .map(c -> "+" + c)
                    .orElse("");
            return job + "." + step + component;
        }
        return JsonFields.text(id).orElse("");
    }

    /** The text's Nodes= is the number of hosts in NodeList; JSON prints only the list. */
    private static OptionalInt nodeCount(String nodes) {
        if (nodes.isEmpty()) {
            return OptionalInt.empty();
        }
        try {
            long count = Hostlist.count(nodes);
            return count > Integer.MAX_VALUE ? OptionalInt.empty() : OptionalInt.of((int) count);
        } catch (HostlistException e) {
            return OptionalInt.empty();
        }
    }
}
