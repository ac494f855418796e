package org.slurmautoresume.nodeops.sweep;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.hostlist.HostlistException;

/**
 * Reads a sweep policy from JSON or YAML (by the file's extension: {@code .yaml}/{@code .yml}
 * is YAML, anything else JSON). Fields left out keep their {@link SweepPolicy#DEFAULTS}; an
 * unknown field is an error, since a misspelt limit silently ignored is worse than none.
 */
public final class SweepPolicyLoader {

    static final long MAX_SECONDS = Duration.ofDays(30).toSeconds();

    private static final Set<String> FIELDS = Set.of("escalateFailAfterSeconds", "notRespondingAfterSeconds",
            "notRespondingAction", "completingAfterSeconds", "donorMaxAgeSeconds", "resumeReturnedNodes",
            "resumeUnexpectedlyRebooted", "maxNodes", "maxPartitionPercent", "excludeNodes", "healthCommand",
            "healthTimeoutSeconds");

    private SweepPolicyLoader() {
    }

    public static SweepPolicy load(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new SweepPolicyException(file + ": cannot read the policy file: " + e.getMessage(), e);
        }
        return parse(text, file.toString(), isYaml(file));
    }

    static boolean isYaml(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".yaml") || name.endsWith(".yml");
    }

    /** {@code source}: the file name for messages. */
    public static SweepPolicy parse(String text, String source, boolean yaml) {
        ObjectMapper mapper = yaml ? new ObjectMapper(new YAMLFactory()) : new ObjectMapper();
        JsonNode root;
        try {
            root = mapper.readTree(text);
        } catch (JsonProcessingException e) {
            throw new SweepPolicyException(source + ": not valid " + (yaml ? "YAML" : "JSON") + ": "
                    + e.getOriginalMessage() + locationOf(e), e);
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            return SweepPolicy.DEFAULTS;
        }
        if (!root.isObject()) {
            throw new SweepPolicyException(source + ": the policy must be a mapping of field names to values");
        }
        Reader in = new Reader(source, root);
        in.rejectUnknown();
        SweepPolicy d = SweepPolicy.DEFAULTS;
        return new SweepPolicy(
                in.seconds("escalateFailAfterSeconds", d.escalateFailAfter()),
                in.seconds("notRespondingAfterSeconds", d.notRespondingAfter()),
                in.choice("notRespondingAction", List.of("replace", "report"), d.markNotResponding() ? "replace" : "report")
                        .equals("replace"),
                in.seconds("completingAfterSeconds", d.completingAfter()),
                in.seconds("donorMaxAgeSeconds", d.donorMaxAge()),
                in.bool("resumeReturnedNodes", d.resumeReturned()),
                in.bool("resumeUnexpectedlyRebooted", d.resumeUnexpectedReboot()),
                in.integer("maxNodes", d.maxNodes(), 0, 100_000),
                in.integer("maxPartitionPercent", d.maxPartitionPercent(), 0, 100),
                in.hostlist("excludeNodes", d.excludeNodes()),
                in.argv("healthCommand", d.healthCommand()),
                in.seconds("healthTimeoutSeconds", d.healthTimeout()));
    }

    private static String locationOf(JsonProcessingException e) {
        return e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column "
                + e.getLocation().getColumnNr() + ")";
    }

    /** Reads one field at a time and names it in every complaint. */
    private record Reader(String source, JsonNode root) {

        void rejectUnknown() {
            for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
                String name = it.next().getKey();
                if (!FIELDS.contains(name)) {
                    throw bad(name, "unknown field (known: " + String.join(", ", FIELDS.stream().sorted().toList()) + ")");
                }
            }
        }

        Duration seconds(String field, Duration fallback) {
            JsonNode value = root.get(field);
            if (value == null || value.isNull()) {
                return fallback;
            }
            if (!value.canConvertToLong() || !value.isIntegralNumber()) {
                throw bad(field, "must be a whole number of seconds, got " + value);
            }
            long seconds = value.asLong();
            if (seconds < 0 || seconds > MAX_SECONDS) {
                throw bad(field, "must be between 0 and " + MAX_SECONDS + " seconds (30 days), got " + seconds);
            }
            return Duration.ofSeconds(seconds);
        }

        int integer(String field, int fallback, int min, int max) {
            JsonNode value = root.get(field);
            if (value == null || value.isNull()) {
                return fallback;
            }
            if (!value.isIntegralNumber() || !value.canConvertToInt() || value.asInt() < min || value.asInt() > max) {
                throw bad(field, "must be a whole number from " + min + " to " + max + ", got " + value);
            }
            return value.asInt();
        }

        boolean bool(String field, boolean fallback) {
            JsonNode value = root.get(field);
            if (value == null || value.isNull()) {
                return fallback;
            }
            if (!value.isBoolean()) {
                throw bad(field, "must be true or false, got " + value);
            }
            return value.asBoolean();
        }

        String choice(String field, List<String> allowed, String fallback) {
            JsonNode value = root.get(field);
            if (value == null || value.isNull()) {
                return fallback;
            }
            String text = value.isTextual() ? value.asText().toLowerCase(Locale.ROOT) : "";
            if (!allowed.contains(text)) {
                throw bad(field, "must be one of " + String.join(", ", allowed) + ", got " + value);
            }
            return text;
        }

        String hostlist(String field, String fallback) {
            JsonNode value = root.get(field);
            if (value == null || value.isNull()) {
                return fallback;
            }
            if (!value.isTextual()) {
                throw bad(field, "must be a hostlist expression such as \"node[1-4]\", got " + value);
            }
            try {
                Hostlist.expand(value.asText());
            } catch (HostlistException e) {
                throw bad(field, e.getMessage());
            }
            return value.asText();
        }

        List<String> argv(String field, List<String> fallback) {
            JsonNode value = root.get(field);
            if (value == null || value.isNull()) {
                return fallback;
            }
            if (!value.isArray() || value.isEmpty()) {
                throw bad(field, "must be a non-empty list of words (program first), not a shell string; got " + value);
            }
            List<String> argv = new ArrayList<>();
            for (JsonNode word : value) {
                if (!word.isTextual() || word.asText().isEmpty()) {
                    throw bad(field, "every word must be a non-empty string, got " + word);
                }
                argv.add(word.asText());
            }
            return argv;
        }

        SweepPolicyException bad(String field, String why) {
            return new SweepPolicyException(source + ": field '" + field + "': " + why);
        }
    }
}
