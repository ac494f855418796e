package org.slurmautoresume.supervisor.step.record;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.slurmautoresume.slurm.files.OwnedFiles;

/**
 * A job's timeline, one JSON object a line, in the user's {@link JobStateDirectory} beside the
 * restart history: launches, detections (log rules, silent slurmd), how each attempt ended, the
 * decisions, dumps, replacements, requeues, with the latencies that matter (detection after the
 * evidence, repair after the step ended, relaunch after the attempt before it ended). Every srun
 * of the job, and every run of it after a requeue on the same batch host, appends to the one file.
 *
 * <p>Lines are written by hand, not by Jackson: every supervised srun writes one, and the
 * supervisor keeps its start-up free of libraries it does not need. A write that fails is
 * reported once and the step goes on: the timeline is for people, never a reason to stop.
 */
public final class EventHistory {

    /** What happened; the names are the {@code event} field's values. */
    public enum Kind {
        LAUNCH("launch"),
        /** The attempt's first sign of progress (a heartbeat, a new checkpoint): its restart is over. */
        PROGRESS("progress"),
        DETECTION("detection"),
        ATTEMPT_ENDED("attempt-ended"),
        DECISION("decision"),
        DUMP("dump"),
        REPLACEMENT("replacement"),
        REQUEUE("requeue"),
        GIVE_UP("give-up"),
        REPEATED_FAILURE("repeated-failure"),
        SUCCEEDED("succeeded"),
        PATHS("recovery-paths"),
        CONTROLLER("controller"),
        WATCH("watch"),
        PAUSE("pause");

        private final String word;

        Kind(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }
    }

    /**
     * One line of the timeline.
     *
     * @param latencyMs how long the event took to follow the one it answers (see {@link EventHistory})
     * @param details   further fields, in the order written
     */
    public record Event(
            Instant at,
            String event,
            String jobId,
            int attempt,
            String stepId,
            OptionalLong latencyMs,
            Map<String, String> details) {

        public Event {
            details = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(details));
        }
    }

    private final Path file;
    private final String jobId;
    private final Consumer<String> onFailure;
    private boolean failed;

    public EventHistory(Path stateDir, String user, String jobId, Consumer<String> onFailure) {
        this.file = fileFor(stateDir, user, jobId);
        this.jobId = jobId;
        this.onFailure = onFailure;
    }

    public static Path fileFor(Path stateDir, String user, String jobId) {
        return stateDir.resolve("autoresume-events-" + JobStateDirectory.nameSafe(user) + "-" + jobId + ".jsonl");
    }

    public Path path() {
        return file;
    }

    /** Appends one event; {@code details} alternate names and values. */
    public synchronized void record(Kind kind, int attempt, String stepId, OptionalLong latencyMs, String... details) {
        StringBuilder line = new StringBuilder(160).append("{\"at\":");
        string(line, Instant.now().toString());
        line.append(",\"event\":");
        string(line, kind.word());
        line.append(",\"jobId\":");
        string(line, jobId);
        line.append(",\"attempt\":").append(attempt).append(",\"stepId\":");
        if (stepId == null) {
            line.append("null");
        } else {
            string(line, stepId);
        }
        if (latencyMs.isPresent()) {
            line.append(",\"latencyMs\":").append(latencyMs.getAsLong());
        }
        for (int i = 0; i + 1 < details.length; i += 2) {
            line.append(',');
            string(line, details[i]);
            line.append(':');
            string(line, details[i + 1] == null ? "" : details[i + 1]);
        }
        line.append("}\n");
        try {
            OwnedFiles.append(file, JobStateDirectory.uid(), line.toString());
        } catch (IOException e) {
            if (!failed) {
                failed = true;
                onFailure.accept("cannot write the job's event history " + file + " (" + e.getMessage() + ")");
            }
        }
    }

    /** JSON string syntax (RFC 8259): quotes, backslash and control characters escaped. */
    static void string(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /**
     * The events of a file, in order. A line that is not an event (a write cut short by a crash)
     * is skipped and counted in {@code skipped}, never fatal.
     */
    public static List<Event> read(Path file, List<String> skipped) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<Event> events = new ArrayList<>();
        int number = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            number++;
            if (line.isBlank()) {
                continue;
            }
            try {
                JsonNode node = json.readTree(line);
                Map<String, String> details = new LinkedHashMap<>();
                for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> field = it.next();
                    if (!List.of("at", "event", "jobId", "attempt", "stepId", "latencyMs")
                            .contains(field.getKey())) {
                        details.put(field.getKey(), field.getValue().asText());
                    }
                }
                JsonNode step = node.path("stepId");
                events.add(new Event(
                        Instant.parse(node.path("at").asText()),
                        node.path("event").asText(),
                        node.path("jobId").asText(),
                        node.path("attempt").asInt(),
                        step.isTextual() ? step.asText() : null,
                        node.has("latencyMs")
                                ? OptionalLong.of(node.get("latencyMs").asLong())
                                : OptionalLong.empty(),
                        details));
            } catch (IOException | DateTimeParseException e) {
                skipped.add(file + ":" + number + ": " + e.getMessage());
            }
        }
        return events;
    }
}
