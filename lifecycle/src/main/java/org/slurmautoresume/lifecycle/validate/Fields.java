package org.slurmautoresume.lifecycle.validate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Typed, path-aware access to one JSON object's fields. Each read that finds a missing field or
 * a wrong type adds a problem and returns empty, so one pass reports everything; fields nobody
 * asked for are reported by {@link #reportUnknown()}.
 */
final class Fields {

    private final JsonNode node;
    private final String path;
    private final Problems problems;
    private final Set<String> asked = new LinkedHashSet<>();

    private Fields(JsonNode node, String path, Problems problems) {
        this.node = node;
        this.path = path;
        this.problems = problems;
    }

    /** {@code node} as an object, or empty after reporting what it is instead. */
    static Optional<Fields> object(JsonNode node, String path, Problems problems) {
        if (node == null || !node.isObject()) {
            problems.error(path, "expected a JSON object, found " + describe(node), "make " + path + " an object {...}");
            return Optional.empty();
        }
        return Optional.of(new Fields(node, path, problems));
    }

    String path() {
        return path;
    }

    String pathOf(String name) {
        return path + "." + name;
    }

    /** A required field: missing, null or not a non-empty string is an error. */
    Optional<String> requiredString(String name, String fix) {
        return string(name, true, fix);
    }

    Optional<String> optionalString(String name) {
        return string(name, false, "");
    }

    private Optional<String> string(String name, boolean required, String fix) {
        Optional<JsonNode> found = present(name, required, fix);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        JsonNode value = found.get();
        if (!value.isTextual()) {
            problems.error(pathOf(name), "expected a string, found " + describe(value),
                    "write the value in double quotes");
            return Optional.empty();
        }
        if (value.asText().isBlank()) {
            if (required) {
                problems.error(pathOf(name), "is empty", fix);
            }
            return Optional.empty();
        }
        return Optional.of(value.asText());
    }

    /** The field's value; a required one that is missing (or null) is reported. */
    private Optional<JsonNode> present(String name, boolean required, String fix) {
        asked.add(name);
        JsonNode value = node.get(name);
        if (absent(value)) {
            if (required) {
                problems.error(pathOf(name), "required field is missing", fix);
            }
            return Optional.empty();
        }
        return Optional.of(value);
    }

    /** An integer field; {@code min} is the smallest value allowed. */
    Optional<Integer> integer(String name, boolean required, int min, String fix) {
        Optional<JsonNode> found = present(name, required, fix);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        JsonNode value = found.get();
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            problems.error(pathOf(name), "expected a whole number, found " + describe(value),
                    "write a number without quotes, e.g. " + Math.max(min, 1));
            return Optional.empty();
        }
        if (value.intValue() < min) {
            problems.error(pathOf(name), "must be at least " + min + ", found " + value.intValue(), fix);
            return Optional.empty();
        }
        return Optional.of(value.intValue());
    }

    Optional<Fields> optionalObject(String name) {
        asked.add(name);
        JsonNode value = node.get(name);
        return absent(value) ? Optional.empty() : object(value, pathOf(name), problems);
    }

    Optional<Fields> requiredObject(String name, String fix) {
        return present(name, true, fix).flatMap(value -> object(value, pathOf(name), problems));
    }

    /** The elements of an array field with their paths; a required one must not be empty. */
    List<Element> array(String name, boolean required, String fix) {
        Optional<JsonNode> found = present(name, required, fix);
        if (found.isEmpty()) {
            return List.of();
        }
        JsonNode value = found.get();
        if (!value.isArray()) {
            problems.error(pathOf(name), "expected a JSON array, found " + describe(value), "make it a list [...]");
            return List.of();
        }
        if (required && value.isEmpty()) {
            problems.error(pathOf(name), "is empty", fix);
        }
        List<Element> elements = new ArrayList<>();
        for (int i = 0; i < value.size(); i++) {
            elements.add(new Element(value.get(i), pathOf(name) + "[" + i + "]"));
        }
        return elements;
    }

    /** Fields that are known and allowed but not checked here (other parts of a larger API request). */
    void accept(String... names) {
        asked.addAll(List.of(names));
    }

    /** Warns about each field no read asked for, with the known name it most likely meant. */
    void reportUnknown() {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (asked.contains(name)) {
                continue;
            }
            String fix = closest(name).map(known -> "did you mean \"" + known + "\"? Field names are case-sensitive")
                    .orElse("remove it, or check the spelling against the documented fields: " + String.join(", ", asked));
            problems.warning(pathOf(name), "unknown field, ignored", fix);
        }
    }

    private Optional<String> closest(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = 3;
        for (String known : asked) {
            int d = distance(lower, known.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                best = known;
                bestDistance = d;
            }
        }
        return Optional.ofNullable(best);
    }

    /** Levenshtein distance; names are short. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    private static boolean absent(JsonNode value) {
        return value == null || value.isNull() || value.isMissingNode();
    }

    static String describe(JsonNode value) {
        if (value == null || value.isMissingNode()) {
            return "nothing";
        }
        JsonNodeType type = value.getNodeType();
        String shown = value.toString();
        if (shown.length() > 40) {
            shown = shown.substring(0, 37) + "...";
        }
        return switch (type) {
            case STRING -> "a string (" + shown + ")";
            case NUMBER -> "a number (" + shown + ")";
            case BOOLEAN -> "a boolean (" + shown + ")";
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case NULL -> "null";
            default -> type.name().toLowerCase(Locale.ROOT);
        };
    }

    /** One array element and its JSON path. */
    record Element(JsonNode node, String path) {
    }
}
