package org.slurmautoresume.cli;

import java.util.List;

/**
 * {@code nodes --json}, written by hand: the text is the one {@link Json} writes for a list of
 * {@link NodeView} with Jackson (same order, indentation, escapes and nulls; a unit test compares
 * the two over every recorded node and hostile strings). Jackson's writer, even its streaming
 * core without an object mapper, loaded about 60 classes at every {@code nodes --json} start for
 * fifteen fields. Adding a field to NodeView means adding it here too; the comparison fails until
 * it is.
 */
final class NodesJson {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private NodesJson() {}

    static String write(List<NodeView> nodes) {
        if (nodes.isEmpty()) {
            return "[ ]";
        }
        StringBuilder json = new StringBuilder(nodes.size() * 512);
        json.append("[ ");
        for (int i = 0; i < nodes.size(); i++) {
            if (i > 0) {
                json.append(", ");
            }
            write(json, nodes.get(i));
        }
        return json.append(" ]").toString();
    }

    private static void write(StringBuilder json, NodeView node) {
        json.append('{');
        string(json, "name", node.name(), true);
        string(json, "address", node.address(), false);
        string(json, "hostname", node.hostname(), false);
        field(json, "port", false)
                .append(node.port() == null ? "null" : node.port().toString());
        string(json, "state", node.state(), false);
        string(json, "baseState", node.baseState(), false);
        strings(json, "stateFlags", node.stateFlags());
        field(json, "notResponding", false).append(node.notResponding());
        string(json, "reason", node.reason(), false);
        string(json, "reasonUser", node.reasonUser(), false);
        string(json, "reasonTime", node.reasonTime(), false);
        string(json, "bootTime", node.bootTime(), false);
        string(json, "slurmdStartTime", node.slurmdStartTime(), false);
        strings(json, "partitions", node.partitions());
        string(json, "gres", node.gres(), false);
        json.append("\n}");
    }

    /** A field's name on its own line, indented as an object in the top-level list is. */
    private static StringBuilder field(StringBuilder json, String name, boolean first) {
        return json.append(first ? "\n  \"" : ",\n  \"").append(name).append("\" : ");
    }

    private static void string(StringBuilder json, String name, String value, boolean first) {
        quoted(field(json, name, first), value);
    }

    private static void strings(StringBuilder json, String name, List<String> values) {
        field(json, name, false);
        if (values == null) {
            json.append("null");
            return;
        }
        if (values.isEmpty()) {
            json.append("[ ]");
            return;
        }
        json.append("[ ");
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                json.append(", ");
            }
            quoted(json, values.get(i));
        }
        json.append(" ]");
    }

    /**
     * A JSON string as Jackson writes it by default: quote and backslash escaped, the control
     * characters below U+0020 as their short escape or a six-character one (backslash, u, four upper-case hex digits), everything
     * else (non-ASCII, surrogate pairs, {@code /}) as it is; null as null.
     */
    private static void quoted(StringBuilder json, String value) {
        if (value == null) {
            json.append("null");
            return;
        }
        json.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\b' -> json.append("\\b");
                case '\t' -> json.append("\\t");
                case '\n' -> json.append("\\n");
                case '\f' -> json.append("\\f");
                case '\r' -> json.append("\\r");
                default -> {
                    if (c < 0x20) {
                        json.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }
}
