package org.slurmautoresume.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * {@code nodes --json}, written field by field on Jackson's streaming core: the text is the one
 * {@link Json} writes for a list of {@link NodeView} (same order, indentation and nulls; a unit
 * test compares the two), without building an object mapper, which with the locale data it reads
 * cost every {@code nodes --json} about a quarter of its start. Adding a field to NodeView means
 * adding it here too; the comparison fails until it is.
 */
final class NodesJson {

    private NodesJson() {}

    static String write(List<NodeView> nodes) {
        StringWriter text = new StringWriter();
        try (JsonGenerator json = new JsonFactory().createGenerator(text)) {
            json.setPrettyPrinter(new DefaultPrettyPrinter());
            json.writeStartArray();
            for (NodeView node : nodes) {
                write(json, node);
            }
            json.writeEndArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return text.toString();
    }

    private static void write(JsonGenerator json, NodeView node) throws IOException {
        json.writeStartObject();
        string(json, "name", node.name());
        string(json, "address", node.address());
        string(json, "hostname", node.hostname());
        json.writeFieldName("port");
        if (node.port() == null) {
            json.writeNull();
        } else {
            json.writeNumber(node.port().intValue());
        }
        string(json, "state", node.state());
        string(json, "baseState", node.baseState());
        strings(json, "stateFlags", node.stateFlags());
        json.writeBooleanField("notResponding", node.notResponding());
        string(json, "reason", node.reason());
        string(json, "reasonUser", node.reasonUser());
        string(json, "reasonTime", node.reasonTime());
        string(json, "bootTime", node.bootTime());
        string(json, "slurmdStartTime", node.slurmdStartTime());
        strings(json, "partitions", node.partitions());
        string(json, "gres", node.gres());
        json.writeEndObject();
    }

    /** A string field; null is written as null, as the object mapper writes it. */
    private static void string(JsonGenerator json, String name, String value) throws IOException {
        json.writeFieldName(name);
        if (value == null) {
            json.writeNull();
        } else {
            json.writeString(value);
        }
    }

    private static void strings(JsonGenerator json, String name, List<String> values) throws IOException {
        json.writeFieldName(name);
        if (values == null) {
            json.writeNull();
            return;
        }
        json.writeStartArray();
        for (String value : values) {
            if (value == null) {
                json.writeNull();
            } else {
                json.writeString(value);
            }
        }
        json.writeEndArray();
    }
}
