package org.slurmautoresume.slurm.parse.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.JobState;

/**
 * Parses {@code scontrol --json show job} (Slurm 23.02 and later, data_parser v0.0.39 to
 * v0.0.45) into the same {@link Job} values the text parser gives. Unknown fields are kept in
 * {@code raw}; times are epoch seconds read in the given zone.
 */
public final class JsonJobParser {

    private final ZoneId zone;

    /** Reads times in the system's zone, as scontrol's text does. */
    public JsonJobParser() {
        this(ZoneId.systemDefault());
    }

    public JsonJobParser(ZoneId zone) {
        this.zone = Objects.requireNonNull(zone);
    }

    public List<Job> parseAll(String output) {
        JsonNode root = JsonDocument.read(output);
        boolean emptySharedUnknown = JsonDocument.dataParserVersion(root)
                .map(v -> v >= FIRST_PARSER_WITHOUT_NONE_SHARED)
                .orElse(false);
        List<Job> jobs = new ArrayList<>();
        for (JsonNode record : JsonDocument.records(root, "jobs", output)) {
            jobs.add(parse(record, emptySharedUnknown));
        }
        return jobs;
    }

    /**
     * From data_parser v0.0.45 (Slurm 26.05) an {@code --exclusive} job's {@code shared} is an empty
     * list where earlier parsers listed {@code none}, so the empty list no longer tells NO from OK;
     * the allocation's {@code job_resources.nodes.whole} does.
     */
    static final int FIRST_PARSER_WITHOUT_NONE_SHARED = 45;

    Job parse(JsonNode record) {
        return parse(record, false);
    }

    Job parse(JsonNode record, boolean emptySharedUnknown) {
        JsonFields f = new JsonFields(record);
        OptionalLong jobId = f.number("job_id");
        if (jobId.isEmpty() || !JobId.isValid(Long.toString(jobId.getAsLong()))) {
            throw f.error(
                    jobId.isEmpty() ? "record has no job_id" : "job_id " + jobId.getAsLong() + " is not a job id");
        }
        String stateWord = JsonJobStates.word(f.get("job_state"));
        if (stateWord.isEmpty()) {
            throw f.error("record has no job_state");
        }
        JobState state = JobState.parse(stateWord);
        return new Job(
                Long.toString(jobId.getAsLong()),
                f.text("name"),
                f.text("user_name"),
                f.integer("user_id"),
                state,
                reason(f),
                f.text("nodes"),
                f.integer("node_count").orElse(0),
                f.optional("batch_host"),
                f.text("excluded_nodes"),
                f.text("required_nodes"),
                f.text("partition"),
                f.integer("restart_cnt").orElse(0),
                f.flag("requeue"),
                f.flag("batch_flag"),
                exitCode(f.get("exit_code")),
                f.time(zone, "start_time"),
                endTime(f, state),
                f.time(zone, "submit_time"),
                f.time(zone, "resize_time"),
                f.text("dependency"),
                overSubscribe(f.get("shared"), emptySharedUnknown ? wholeNodes(record) : null),
                f.text("licenses"),
                jobIdOrNone(f, "array_job_id"),
                jobIdOrNone(f, "het_job_id"),
                f.list("flags").stream().anyMatch("EXPEDITED_REQUEUE"::equalsIgnoreCase),
                f.optional("tres_alloc_str")
                        .or(() -> f.optional("tres_req_str"))
                        .orElse(""),
                new Job.TresPer(
                        f.text("tres_per_job"),
                        f.text("tres_per_node"),
                        f.text("tres_per_socket"),
                        f.text("tres_per_task")),
                f.raw());
    }

    /** {@code array_job_id} and {@code het_job_id} are 0 for a job outside an array or het job; the text omits them. */
    private static Optional<String> jobIdOrNone(JsonFields f, String name) {
        OptionalLong id = f.number(name);
        return id.isPresent() && id.getAsLong() > 0 ? Optional.of(Long.toString(id.getAsLong())) : Optional.empty();
    }

    /**
     * What the text prints as {@code OverSubscribe=} (job_share_string). data_parser lists the
     * one name whose value equals the job's {@code shared} (JOB_SHARED flags: none, oversubscribe,
     * user, mcs, topo from v0.0.41); a value with no name, NO_VAL16 when the job left it to the
     * partition, gives an empty list, which the text prints as OK (up to v0.0.44; from v0.0.45 an
     * empty list is NO where the allocation holds whole nodes, OK where it does not, and not known
     * before there is one). A field that is missing or of another shape is not known: "".
     */
    private static String overSubscribe(JsonNode shared, JsonNode wholeNodes) {
        if (shared.isTextual()) {
            return textOverSubscribe(shared.textValue());
        }
        if (!shared.isArray()) {
            return "";
        }
        for (JsonNode item : shared) {
            Optional<String> name = JsonFields.text(item);
            if (name.isPresent()) {
                return textOverSubscribe(name.get());
            }
        }
        if (wholeNodes == null) {
            return "OK";
        }
        return wholeNodes.isBoolean() ? (wholeNodes.booleanValue() ? "NO" : "OK") : "";
    }

    /** Whether the allocation holds its nodes whole; a missing node (no allocation yet) is not known. */
    private static JsonNode wholeNodes(JsonNode record) {
        return record.path("job_resources").path("nodes").path("whole");
    }

    private static String textOverSubscribe(String name) {
        return switch (name.strip().toLowerCase(Locale.ROOT)) {
            case "none" -> "NO";
            case "oversubscribe" -> "YES";
            default -> name.strip().toUpperCase(Locale.ROOT); // user, mcs, topo: the text's words
        };
    }

    /** As the text prints it: the description (blanks made '_') when there is one, else the reason. */
    private static String reason(JsonFields f) {
        Optional<String> description = f.optional("state_description");
        if (description.isPresent()) {
            return description.get().replaceAll("\\s", "_");
        }
        return f.text("state_reason");
    }

    /**
     * slurmctld sets a job without a time limit to end a year after it started; the text prints
     * that guess as {@code EndTime=Unknown} while it lies ahead, and so does this parser while
     * the job has not ended.
     */
    private Optional<LocalDateTime> endTime(JsonFields f, JobState state) {
        boolean stillRunning = switch (state) {
            case PENDING,
                    RUNNING,
                    SUSPENDED,
                    CONFIGURING,
                    RESIZING,
                    STOPPED,
                    REQUEUED,
                    REQUEUE_HOLD,
                    REQUEUE_FED,
                    RESV_DEL_HOLD -> true;
            default -> false;
        };
        if (stillRunning && f.isInfinite("time_limit")) {
            return Optional.empty();
        }
        return f.time(zone, "end_time");
    }

    /**
     * v0.0.40 and later print {@code {"status", "return_code", "signal": {"id", "name"}}};
     * v0.0.39 prints the raw wait(2) status, which the text splits with WIFEXITED/WTERMSIG.
     */
    static Optional<Job.ExitCode> exitCode(JsonNode value) {
        if (value.isObject() && (value.has("return_code") || value.has("signal") || value.has("status"))) {
            int status = (int) JsonFields.number(value.get("return_code")).orElse(0);
            int signal = (int) JsonFields.number(value.path("signal").get("id")).orElse(0);
            return Optional.of(new Job.ExitCode(status, signal));
        }
        OptionalLong raw = JsonFields.number(value);
        if (raw.isEmpty()) {
            return Optional.empty();
        }
        long wait = raw.getAsLong();
        int termSignal = (int) (wait & 0x7f);
        if (termSignal == 0) {
            return Optional.of(new Job.ExitCode((int) ((wait >> 8) & 0xff), 0));
        }
        if (termSignal != 0x7f) {
            return Optional.of(new Job.ExitCode(0, termSignal));
        }
        return Optional.of(new Job.ExitCode(0, 0)); // stopped, neither exited nor signalled
    }
}
