package org.slurmautoresume.supervisor.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads typed values out of a configuration tree and records, instead of throwing, every
 * value that is wrong: a file's errors are all reported at once. A field set to null counts as
 * absent (in a per-job file, null clears the site's value).
 */
final class FieldReader {

    private final List<ConfigProblem> problems;
    private String file;

    FieldReader(String file, List<ConfigProblem> problems) {
        this.file = file;
        this.problems = problems;
    }

    /** Problems found from now on are attributed to this file (or files). */
    void attributeTo(String label) {
        this.file = label;
    }

    String file() {
        return file;
    }

    int problemCount() {
        return problems.size();
    }

    boolean hasErrorsSince(int mark) {
        return problems.subList(mark, problems.size()).stream().anyMatch(ConfigProblem::error);
    }

    boolean hasErrors() {
        return hasErrorsSince(0);
    }

    void error(String path, String message) {
        problems.add(new ConfigProblem(file, path, message, true));
    }

    void warning(String path, String message) {
        problems.add(new ConfigProblem(file, path, message, false));
    }

    static String child(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    static boolean absent(JsonNode node) {
        return node == null || node.isMissingNode() || node.isNull();
    }

    /** True when {@code node} is an object (or absent); reports anything else. */
    boolean isObjectOrAbsent(JsonNode node, String path) {
        if (absent(node) || node.isObject()) {
            return true;
        }
        error(path, "expected a mapping of fields, found " + describe(node));
        return false;
    }

    void rejectUnknownFields(JsonNode object, Set<String> known, String path) {
        if (absent(object)) {
            return;
        }
        for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                error(child(path, name), "unknown field; known here: " + String.join(", ", new TreeSet<>(known)));
            }
        }
    }

    OptionalLong wholeNumber(JsonNode parent, String field, String path, long min) {
        JsonNode node = parent.get(field);
        String where = child(path, field);
        if (absent(node)) {
            return OptionalLong.empty();
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            error(where, "expected a whole number, found " + describe(node));
            return OptionalLong.empty();
        }
        long value = node.asLong();
        if (value < min) {
            error(where, (min == 0 ? "must not be negative" : "must be at least " + min) + ", found " + value);
            return OptionalLong.empty();
        }
        if (value > Integer.MAX_VALUE) {
            error(where, "too large: " + value);
            return OptionalLong.empty();
        }
        return OptionalLong.of(value);
    }

    OptionalDouble number(JsonNode parent, String field, String path) {
        JsonNode node = parent.get(field);
        if (absent(node)) {
            return OptionalDouble.empty();
        }
        if (!node.isNumber() || !Double.isFinite(node.asDouble())) {
            error(child(path, field), "expected a number, found " + describe(node));
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(node.asDouble());
    }

    Optional<String> text(JsonNode parent, String field, String path) {
        JsonNode node = parent.get(field);
        if (absent(node)) {
            return Optional.empty();
        }
        if (!node.isTextual()) {
            error(child(path, field), "expected text, found " + describe(node));
            return Optional.empty();
        }
        return Optional.of(node.asText());
    }

    static String describe(JsonNode node) {
        if (node.isTextual()) {
            return "text \"" + node.asText() + "\"";
        }
        if (node.isNumber()) {
            return "number " + node.asText();
        }
        if (node.isBoolean()) {
            return "boolean " + node.asText();
        }
        if (node.isArray()) {
            return "a list";
        }
        if (node.isObject()) {
            return "a mapping";
        }
        return node.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
    }
}
