package org.slurmautoresume.slurm.parse.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.slurmautoresume.slurm.parse.ParseException;

/**
 * Typed, forgiving reads of one JSON record. Slurm's data_parser prints a number in one of
 * three shapes depending on version and mode: a plain number (v0.0.39 times and counters), an
 * object {@code {"set": .., "infinite": .., "number": ..}} (every *_NO_VAL field, and times from
 * v0.0.40), or, in the "complex" mode, a plain number, {@code null} or {@code "Infinity"}. All
 * of them read the same here; a field of an unexpected shape reads as absent, never as an error.
 */
final class JsonFields {

    private final JsonNode record;

    JsonFields(JsonNode record) {
        this.record = record;
    }

    /** The value at a path of field names, or a missing node. */
    JsonNode get(String... path) {
        JsonNode node = record;
        for (String name : path) {
            node = node.path(name);
        }
        return node;
    }

    String required(String name) {
        Optional<String> value = optional(name);
        if (value.isEmpty()) {
            throw error("record has no " + name);
        }
        return value.get();
    }

    /** The value as text, or "" for absent, null and Slurm's spellings of nothing. */
    String text(String... path) {
        return optional(path).orElse("");
    }

    Optional<String> optional(String... path) {
        return text(get(path));
    }

    OptionalInt integer(String... path) {
        OptionalLong value = number(get(path));
        if (value.isEmpty() || value.getAsLong() < Integer.MIN_VALUE || value.getAsLong() > Integer.MAX_VALUE) {
            return OptionalInt.empty();
        }
        return OptionalInt.of((int) value.getAsLong());
    }

    OptionalLong number(String... path) {
        return number(get(path));
    }

    boolean flag(String... path) {
        JsonNode value = get(path);
        if (value.isBoolean()) {
            return value.booleanValue();
        }
        if (value.isNumber() || value.isObject()) {
            return number(value).orElse(0) != 0;
        }
        String text = value.asText("").strip().toLowerCase(Locale.ROOT);
        return text.equals("true") || text.equals("yes") || text.equals("1");
    }

    boolean isInfinite(String... path) {
        JsonNode value = get(path);
        if (value.isObject()) {
            return value.path("infinite").asBoolean(false);
        }
        String text = value.isTextual() ? value.textValue().strip().toLowerCase(Locale.ROOT) : "";
        return text.equals("infinity") || text.equals("infinite") || text.equals("unlimited");
    }

    /** Epoch seconds as a local time in the zone; 0 and unset mean "no time", as in the text. */
    Optional<LocalDateTime> time(ZoneId zone, String... path) {
        OptionalLong seconds = number(get(path));
        if (seconds.isEmpty() || seconds.getAsLong() <= 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(LocalDateTime.ofInstant(Instant.ofEpochSecond(seconds.getAsLong()), zone));
        } catch (DateTimeException e) {
            return Optional.empty();
        }
    }

    /** A list of strings: data_parser prints comma lists (partitions, features) as arrays. */
    List<String> list(String... path) {
        JsonNode value = get(path);
        List<String> items = new ArrayList<>();
        if (value.isArray()) {
            for (JsonNode item : value) {
                text(item).ifPresent(items::add);
            }
        } else {
            text(value).ifPresent(text -> {
                for (String item : text.split(",")) {
                    if (!item.isBlank()) {
                        items.add(item.strip());
                    }
                }
            });
        }
        return items;
    }

    /** Every top-level field: scalars as their text, objects and lists as compact JSON. */
    Map<String, String> raw() {
        Map<String, String> raw = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> fields = record.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            JsonNode value = field.getValue();
            raw.put(field.getKey(), value.isValueNode() && !value.isNull() ? value.asText() : value.toString());
        }
        return raw;
    }

    ParseException error(String what) {
        return new ParseException(what, record.toString());
    }

    static Optional<String> text(JsonNode value) {
        if (value == null || !value.isValueNode() || value.isNull()) {
            return Optional.empty();
        }
        String text = value.asText().strip();
        // The same spellings of "nothing" the text parsers drop.
        if (text.isEmpty()
                || text.equals("(null)")
                || text.equals("N/A")
                || text.equals("n/a")
                || text.equals("None")) {
            return Optional.empty();
        }
        return Optional.of(text);
    }

    static OptionalLong number(JsonNode value) {
        if (value == null || value.isMissingNode() || value.isNull()) {
            return OptionalLong.empty();
        }
        if (value.isObject()) {
            if (value.path("infinite").asBoolean(false)) {
                return OptionalLong.empty();
            }
            JsonNode set = value.get("set");
            if (set != null && set.isBoolean() && !set.booleanValue()) {
                return OptionalLong.empty();
            }
            return number(value.get("number"));
        }
        if (value.isIntegralNumber()) {
            return value.canConvertToLong() ? OptionalLong.of(value.longValue()) : OptionalLong.empty();
        }
        if (value.isNumber()) {
            return OptionalLong.of((long) value.doubleValue());
        }
        if (value.isTextual()) {
            try {
                return OptionalLong.of(Long.parseLong(value.textValue().strip()));
            } catch (NumberFormatException e) {
                return OptionalLong.empty(); // "Infinity", or words
            }
        }
        return OptionalLong.empty();
    }
}
