package org.slurmautoresume.slurm.parse.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slurmautoresume.slurm.parse.ParseException;

/**
 * One {@code scontrol --json} answer: a JSON object holding the records under one key
 * ({@code nodes}, {@code jobs}, {@code steps}) beside {@code meta}, {@code errors} and
 * {@code warnings}, whose shapes this toolkit does not depend on.
 */
final class JsonDocument {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonDocument() {}

    /** The records under {@code key}; a null or absent-but-empty answer is no records. */
    static List<JsonNode> records(String output, String key) {
        return records(read(output), key, output);
    }

    /** The whole answer, an object (the records are read from it with {@link #records(JsonNode, String, String)}). */
    static JsonNode read(String output) {
        JsonNode root;
        try {
            root = MAPPER.readTree(output);
        } catch (JsonProcessingException e) {
            throw new ParseException(
                    "scontrol --json printed something that is not JSON (" + e.getOriginalMessage() + ")", output);
        }
        if (root == null || !root.isObject()) {
            throw new ParseException("scontrol --json printed no JSON object", output);
        }
        return root;
    }

    /** The records under {@code key} of an answer {@link #read} from {@code output} (quoted in errors). */
    static List<JsonNode> records(JsonNode root, String key, String output) {
        JsonNode list = root.get(key);
        if (list == null) {
            throw new ParseException("scontrol --json printed no \"" + key + "\"", output);
        }
        if (list.isNull()) {
            return List.of();
        }
        if (!list.isArray()) {
            throw new ParseException("\"" + key + "\" is not a list", output);
        }
        List<JsonNode> records = new ArrayList<>(list.size());
        for (JsonNode record : list) {
            if (!record.isObject()) {
                throw new ParseException("a record of \"" + key + "\" is not an object", record.toString());
            }
            records.add(record);
        }
        return records;
    }

    /**
     * The release that answered, from {@code meta.slurm.version}, as major * 100 + minor (24.11
     * is 2411); empty when not printed or not numbers.
     */
    static Optional<Integer> release(JsonNode root) {
        JsonNode version = root.path("meta").path("slurm").path("version");
        Optional<Integer> major = number(version.path("major"));
        Optional<Integer> minor = number(version.path("minor"));
        return major.isPresent() && minor.isPresent() ? Optional.of(major.get() * 100 + minor.get()) : Optional.empty();
    }

    /**
     * The last number of {@code meta.plugin.data_parser} ({@code data_parser/v0.0.42} is 42);
     * empty when not printed or of another form.
     */
    static Optional<Integer> dataParserVersion(JsonNode root) {
        Matcher m = DATA_PARSER.matcher(
                root.path("meta").path("plugin").path("data_parser").asText(""));
        return m.matches() ? Optional.of(Integer.parseInt(m.group(1))) : Optional.empty();
    }

    private static final Pattern DATA_PARSER = Pattern.compile("data_parser/v0\\.0\\.([0-9]{1,4})");

    /** A number printed as a number or as digits in a string (meta's version fields are strings). */
    private static Optional<Integer> number(JsonNode value) {
        if (value.isInt()) {
            return Optional.of(value.intValue());
        }
        String text = value.isTextual() ? value.textValue() : "";
        return text.matches("[0-9]{1,4}") ? Optional.of(Integer.parseInt(text)) : Optional.empty();
    }
}
