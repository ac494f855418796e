package org.slurmautoresume.slurm.parse;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.json.JsonJobParser;
import org.slurmautoresume.slurm.parse.json.JsonNodeParser;

/**
 * The real {@code scontrol --json} records of 24.11 (fixtures/slurm-24.11, data_parser
 * v0.0.42), with fields changed where a test needs a state the capture did not hold: what
 * Slurm 23.02 and later are read from. The capture's clock was UTC, so records are read in UTC
 * and {@link #time} writes a local time as the epoch seconds that read back as it.
 */
public final class JsonRecords {

    public static final String V2411 = "slurm-24.11";
    /** The first release whose JSON names every node state flag; 24.05 to 25.05 nodes are read as text. */
    public static final String V2511 = "slurm-25.11";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonRecords() {}

    /** The fixture's first job with the top-level fields of {@code changes} (a JSON object) put over its own. */
    public static Job job(String fixture, String changes) {
        return new JsonJobParser(ZoneOffset.UTC)
                .parseAll(changed(fixture, "jobs", changes))
                .get(0);
    }

    /** The fixture's first node with the top-level fields of {@code changes} (a JSON object) put over its own. */
    public static Node node(String fixture, String changes) {
        return new JsonNodeParser(ZoneOffset.UTC)
                .parseAll(changed(fixture, "nodes", changes))
                .get(0);
    }

    /**
     * An {@code scontrol --json show node} answer of one record per entry of {@code changes},
     * each the fixture's first node with that entry's top-level fields (a JSON object, its
     * {@code name} among them) put over its own. The fixture is 25.11's ({@link #V2511}): the
     * client reads the JSON of earlier releases since 24.05 for jobs and steps only.
     */
    public static String nodesJson(String fixture, String... changes) {
        try {
            ObjectNode doc = (ObjectNode) MAPPER.readTree(Fixtures.read(V2511, fixture));
            ObjectNode first = (ObjectNode) doc.get("nodes").get(0);
            com.fasterxml.jackson.databind.node.ArrayNode records = doc.putArray("nodes");
            for (String change : changes) {
                ObjectNode record = first.deepCopy();
                record.setAll((ObjectNode) MAPPER.readTree(change));
                records.add(record);
            }
            return MAPPER.writeValueAsString(doc);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + String.join(" ", changes), e);
        }
    }

    /** A time as v0.0.40 and later print it: {@code {"set": true, "infinite": false, "number": EPOCH}}. */
    public static String time(String localTime) {
        long epoch = LocalDateTime.parse(localTime).toEpochSecond(ZoneOffset.UTC);
        return "{\"set\": true, \"infinite\": false, \"number\": " + epoch + "}";
    }

    private static String changed(String fixture, String key, String changes) {
        try {
            ObjectNode doc = (ObjectNode) MAPPER.readTree(Fixtures.read(V2411, fixture));
            ObjectNode record = (ObjectNode) doc.get(key).get(0);
            record.setAll((ObjectNode) MAPPER.readTree(changes));
            doc.putArray(key).add(record);
            return MAPPER.writeValueAsString(doc);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + changes, e);
        }
    }
}
