package org.slurmautoresume.agent.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a supervisor tells the agent about its own job's step, for the agent's Prometheus
 * metrics: one of the events of the job's timeline ({@code EventHistory}) that a counter or a
 * histogram counts. Validated when built, like {@link AgentRequest}: a report cannot carry a
 * negative latency, a rule name with control characters or a count beyond what one request may
 * name, so nothing a user sends can break the exposition or blow up its label sets.
 *
 * @param event     what happened
 * @param attempt   the attempt it happened in (1 for the first run of the step)
 * @param latencyMs how long it took, when the event has a latency (see {@code EventHistory})
 * @param level     for a {@link Event#LAUNCH} after the first: how the step was restarted
 * @param rule      for a {@link Event#DETECTION} by a log rule: the rule's name
 * @param ruleState for a detection by a log rule: SLOW, HANGING or FAULTED
 * @param source    for a detection: what detected it ({@code log-rule}, {@code slurmd-probe}, ...)
 * @param nodeCount for a {@link Event#REPLACEMENT}: how many faulty nodes were replaced
 * @param time      for a {@link Event#GOODPUT}: the step's time newly settled, by what it went to
 */
public record AgentReport(
        Event event,
        int attempt,
        Long latencyMs,
        Level level,
        String rule,
        String ruleState,
        String source,
        Integer nodeCount,
        Time time) {

    /** A week: no latency the supervisor measures is longer; anything beyond is a bad report. */
    static final long MAX_LATENCY_MS = Duration.ofDays(7).toMillis();

    static final int MAX_ATTEMPT = 1_000_000;
    static final int MAX_RULE_NAME = 64;
    private static final Pattern SOURCE = Pattern.compile("[a-z][a-z0-9-]{0,31}");
    private static final List<String> RULE_STATES = List.of("SLOW", "HANGING", "FAULTED");
    /** The most one goodput report may carry in one field: a year (an attempt that long reports once, at its end). */
    static final long MAX_TIME_MS = Duration.ofDays(366).toMillis();

    private static final List<String> TIME_FIELDS =
            List.of("productiveMs", "detectionMs", "recoveryMs", "restartMs", "redoneMs", "unattributedMs");
    private static final List<String> FIELDS = java.util.stream.Stream.concat(
                    java.util.stream.Stream.of(
                            "event", "attempt", "latencyMs", "level", "rule", "ruleState", "source", "nodeCount"),
                    TIME_FIELDS.stream())
            .toList();

    /** The events a metric counts; the words are those of the job's timeline. */
    public enum Event {
        LAUNCH("launch"),
        DETECTION("detection"),
        REPLACEMENT("replacement"),
        REQUEUE("requeue"),
        GIVE_UP("give-up"),
        SUCCEEDED("succeeded"),
        /**
         * The restart just decided leaves the step at most one more (jobMaxRetryCount): one failure from
         * being given up. An agent older than this event refuses the report (its reading is strict); the
         * supervisor then says once that a report was not counted, and every other report still is.
         */
        BUDGET_LOW("budget-low"),
        /**
         * The step's time newly settled since its last goodput report: productive, lost by cause,
         * or unattributed (see {@link Time}). An agent older than this event refuses it, as
         * {@link #BUDGET_LOW}; the supervisor says so once and every other report still counts.
         */
        GOODPUT("goodput");

        private final String word;

        Event(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }

        static Event of(String word) {
            for (Event e : values()) {
                if (e.word.equals(word)) {
                    return e;
                }
            }
            throw new AgentRequestException("unknown report event " + AgentRequest.quoted(word) + "; one of "
                    + String.join(
                            ", ", List.of(values()).stream().map(Event::word).toList()));
        }
    }

    /**
     * A step's time, in milliseconds, by what it went to: productive work, time lost to a fault's
     * detection, the recovery, the application's restart, work redone since the last checkpoint, and
     * time the supervisor could not tell productive from lost. Each 0 to {@link #MAX_TIME_MS}.
     */
    public record Time(
            long productiveMs, long detectionMs, long recoveryMs, long restartMs, long redoneMs, long unattributedMs) {

        public Time {
            long[] all = {productiveMs, detectionMs, recoveryMs, restartMs, redoneMs, unattributedMs};
            for (int i = 0; i < all.length; i++) {
                if (all[i] < 0 || all[i] > MAX_TIME_MS) {
                    throw new AgentRequestException(
                            "\"" + TIME_FIELDS.get(i) + "\" must be 0 to " + MAX_TIME_MS + ", not " + all[i]);
                }
            }
        }

        long[] values() {
            return new long[] {productiveMs, detectionMs, recoveryMs, restartMs, redoneMs, unattributedMs};
        }

        public boolean isZero() {
            return java.util.Arrays.stream(values()).allMatch(v -> v == 0);
        }
    }

    /** How a step was restarted: on the same nodes, or after its faulty nodes were replaced. */
    public enum Level {
        RETRY,
        RECOVER;

        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public AgentReport {
        Objects.requireNonNull(event, "event");
        if (attempt < 1 || attempt > MAX_ATTEMPT) {
            throw new AgentRequestException("\"attempt\" must be 1 to " + MAX_ATTEMPT + ", not " + attempt);
        }
        if (latencyMs != null && (latencyMs < 0 || latencyMs > MAX_LATENCY_MS)) {
            throw new AgentRequestException("\"latencyMs\" must be 0 to " + MAX_LATENCY_MS + ", not " + latencyMs);
        }
        boolean relaunch = event == Event.LAUNCH && attempt > 1;
        if (relaunch != (level != null)) {
            throw new AgentRequestException(
                    relaunch
                            ? "a launch after the first needs \"level\" (retry|recover)"
                            : "\"level\" belongs to a launch after the first only");
        }
        if (event != Event.DETECTION && (rule != null || ruleState != null || source != null)) {
            throw new AgentRequestException("\"rule\", \"ruleState\" and \"source\" belong to a detection only");
        }
        if (event == Event.DETECTION
                && (source == null || !SOURCE.matcher(source).matches())) {
            throw new AgentRequestException("a detection needs \"source\": a lower-case word of at most 32"
                    + " characters, not " + AgentRequest.quoted(source));
        }
        if ((rule == null) != (ruleState == null)) {
            throw new AgentRequestException("\"rule\" and \"ruleState\" go together");
        }
        if (rule != null) {
            if (rule.isEmpty() || rule.length() > MAX_RULE_NAME || rule.chars().anyMatch(Character::isISOControl)) {
                throw new AgentRequestException("\"rule\" must be 1 to " + MAX_RULE_NAME
                        + " characters without control characters, not " + AgentRequest.quoted(rule));
            }
            if (!RULE_STATES.contains(ruleState)) {
                throw new AgentRequestException("\"ruleState\" must be one of " + String.join(", ", RULE_STATES)
                        + ", not " + AgentRequest.quoted(ruleState));
            }
        }
        if ((event == Event.REPLACEMENT) != (nodeCount != null)) {
            throw new AgentRequestException(
                    event == Event.REPLACEMENT
                            ? "a replacement needs \"nodeCount\""
                            : "\"nodeCount\" belongs to a replacement only");
        }
        if ((event == Event.GOODPUT) != (time != null)) {
            throw new AgentRequestException(
                    event == Event.GOODPUT
                            ? "a goodput report needs its time: " + String.join(", ", TIME_FIELDS)
                            : "the time fields belong to a goodput report only");
        }
        if (time != null && time.isZero()) {
            throw new AgentRequestException("a goodput report with no time in it says nothing");
        }
        if (event == Event.GOODPUT && latencyMs != null) {
            throw new AgentRequestException("\"latencyMs\" does not belong to a goodput report");
        }
        if (nodeCount != null && (nodeCount < 1 || nodeCount > AgentRequest.MAX_NODES)) {
            throw new AgentRequestException(
                    "\"nodeCount\" must be 1 to " + AgentRequest.MAX_NODES + ", not " + nodeCount);
        }
    }

    public static AgentReport of(Event event, int attempt, Long latencyMs) {
        return new AgentReport(event, attempt, latencyMs, null, null, null, null, null, null);
    }

    public static AgentReport relaunch(int attempt, long latencyMs, Level level) {
        return new AgentReport(Event.LAUNCH, attempt, latencyMs, level, null, null, null, null, null);
    }

    public static AgentReport detection(int attempt, Long latencyMs, String source, String rule, String ruleState) {
        return new AgentReport(Event.DETECTION, attempt, latencyMs, null, rule, ruleState, source, null, null);
    }

    public static AgentReport replacement(int attempt, long latencyMs, int nodeCount) {
        return new AgentReport(Event.REPLACEMENT, attempt, latencyMs, null, null, null, null, nodeCount, null);
    }

    public static AgentReport goodput(int attempt, Time time) {
        return new AgentReport(Event.GOODPUT, attempt, null, null, null, null, null, null, time);
    }

    /** The wire form: only the fields set, in a fixed order. */
    public Map<String, Object> wireForm() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("event", event.word());
        doc.put("attempt", attempt);
        putIfSet(doc, "latencyMs", latencyMs);
        putIfSet(doc, "level", level == null ? null : level.word());
        putIfSet(doc, "rule", rule);
        putIfSet(doc, "ruleState", ruleState);
        putIfSet(doc, "source", source);
        putIfSet(doc, "nodeCount", nodeCount);
        if (time != null) {
            long[] values = time.values();
            for (int i = 0; i < values.length; i++) {
                doc.put(TIME_FIELDS.get(i), values[i]);
            }
        }
        return doc;
    }

    private static void putIfSet(Map<String, Object> doc, String name, Object value) {
        if (value != null) {
            doc.put(name, value);
        }
    }

    /** Reads the {@code "report"} object of a request, strictly (unknown fields and wrong types are errors). */
    static AgentReport fromJson(JsonNode doc) {
        if (!doc.isObject()) {
            throw new AgentRequestException("\"report\" must be an object");
        }
        for (Iterator<String> names = doc.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new AgentRequestException("unknown report field " + AgentRequest.quoted(name));
            }
        }
        String event = text(doc, "event");
        if (event == null) {
            throw new AgentRequestException("missing report field \"event\"");
        }
        Long attempt = number(doc, "attempt");
        if (attempt == null) {
            throw new AgentRequestException("missing report field \"attempt\"");
        }
        String level = text(doc, "level");
        Level parsedLevel = null;
        if (level != null) {
            parsedLevel = switch (level) {
                case "retry" -> Level.RETRY;
                case "recover" -> Level.RECOVER;
                default ->
                    throw new AgentRequestException(
                            "unknown level " + AgentRequest.quoted(level) + "; one of retry, recover");
            };
        }
        Long nodeCount = number(doc, "nodeCount");
        Time time = null;
        if (TIME_FIELDS.stream().anyMatch(doc::has)) {
            long[] values = new long[TIME_FIELDS.size()];
            for (int i = 0; i < values.length; i++) {
                Long value = number(doc, TIME_FIELDS.get(i));
                if (value == null) {
                    throw new AgentRequestException("missing report field \"" + TIME_FIELDS.get(i) + "\"");
                }
                values[i] = value;
            }
            time = new Time(values[0], values[1], values[2], values[3], values[4], values[5]);
        }
        return new AgentReport(
                Event.of(event),
                (int) Math.min(Math.max(attempt, -1), Integer.MAX_VALUE),
                number(doc, "latencyMs"),
                parsedLevel,
                text(doc, "rule"),
                text(doc, "ruleState"),
                text(doc, "source"),
                nodeCount == null ? null : (int) Math.min(Math.max(nodeCount, -1), Integer.MAX_VALUE),
                time);
    }

    private static String text(JsonNode doc, String field) {
        JsonNode value = doc.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw new AgentRequestException("report field \"" + field + "\" must be a string, not " + value);
        }
        return value.asText();
    }

    private static Long number(JsonNode doc, String field) {
        JsonNode value = doc.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new AgentRequestException("report field \"" + field + "\" must be a whole number, not " + value);
        }
        return value.asLong();
    }
}
