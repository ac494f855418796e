package org.slurmautoresume.slurm.parse.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.slurmautoresume.slurm.parse.ParseException;

/**
 * One {@code scontrol --json} answer: a JSON object holding the records under one key
 * ({@code nodes}, {@code jobs}, {@code steps}) beside {@code meta}, {@code errors} and
 * {@code warnings}, whose shapes this toolkit does not depend on.
 */
final class JsonDocument {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonDocument() {
    }

    /** The records under {@code key}; a null or absent-but-empty answer is no records. */
    static List<JsonNode> records(String output, String key) {
        JsonNode root;
        try {
            root = MAPPER.readTree(output);
        } catch (JsonProcessingException e) {
            throw new ParseException("scontrol --json printed something that is not JSON ("
                    + e.getOriginalMessage() + ")", output);
        }
        if (root == null || !root.isObject()) {
            throw new ParseException("scontrol --json printed no JSON object", output);
        }
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
}
