package org.slurmautoresume.slurm.parse.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import org.slurmautoresume.slurm.parse.Fixtures;

/** The constructed {@code scontrol --json} fixtures, one folder per release (see each README.md). */
final class JsonFixtures {

    /** Folders whose JSON fixtures reprint the 22.05 captures (same job and node ids): v0.0.39 to v0.0.41. */
    static final List<String> REPRINTS_OF_2205 = List.of("slurm-23.02", "slurm-23.11", "slurm-24.05");

    /**
     * Folders with JSON fixtures: data_parser v0.0.39, v0.0.40, v0.0.41, v0.0.43 and v0.0.44, each
     * its release's default (25.05 and 25.11 reprint the 24.11 captures, which hold v0.0.42).
     */
    static final List<String> VERSIONS =
            List.of("slurm-23.02", "slurm-23.11", "slurm-24.05", "slurm-25.05", "slurm-25.11");

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonFixtures() {}

    static Stream<Arguments> named(String prefix) {
        return VERSIONS.stream()
                .flatMap(version -> Fixtures.named(version, prefix, ".json").map(name -> Arguments.of(version, name)));
    }

    static List<JsonNode> records(String output, String key) {
        try {
            List<JsonNode> records = new ArrayList<>();
            MAPPER.readTree(output).get(key).forEach(records::add);
            return records;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** raw holds exactly the record's top-level fields, in order, scalars as text. */
    static void assertRawKeepsEveryField(JsonNode record, Map<String, String> raw, String fixture) {
        List<String> names = new ArrayList<>();
        record.fieldNames().forEachRemaining(names::add);
        assertEquals(names, List.copyOf(raw.keySet()), fixture);
        record.fields().forEachRemaining(field -> {
            JsonNode value = field.getValue();
            String expected = value.isTextual() ? value.textValue() : value.toString();
            assertEquals(expected, raw.get(field.getKey()), fixture + " " + field.getKey());
        });
    }
}
