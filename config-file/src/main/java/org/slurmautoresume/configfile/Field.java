package org.slurmautoresume.configfile;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * One value of a configuration tree, a mapping's field or a list's element, read as one type.
 * Each read reports what is wrong with the value at its path and returns empty; an absent (or
 * null) value is empty without a word unless {@link #required} says it must be there.
 */
public final class Field {

    /** For {@link #wholeNumber}: no upper bound beyond what a long holds. */
    public static final long NO_MAX = Long.MAX_VALUE;

    private final JsonNode value;
    private final ConfigPath path;
    private final Problems problems;
    private boolean required;
    private String missingFix = "";
    private String rangeFix = "";

    Field(JsonNode value, ConfigPath path, Problems problems) {
        this.value = value;
        this.path = path;
        this.problems = problems;
    }

    /** Absent, null or (for text and lists) empty is an error; {@code fixWhenMissing} says what to write. */
    public Field required(String fixWhenMissing) {
        this.required = true;
        this.missingFix = fixWhenMissing;
        return this;
    }

    /**
     * What to do about a number out of range, in place of "use MIN to MAX". A value of the wrong
     * type always gets the generic advice (quotes or none), which is what it needs.
     */
    public Field rangeFix(String fixWhenOutOfRange) {
        this.rangeFix = fixWhenOutOfRange;
        return this;
    }

    public ConfigPath path() {
        return path;
    }

    /** The raw value; null when absent. */
    public JsonNode node() {
        return value;
    }

    public boolean isPresent() {
        return !ConfigFields.isAbsent(value);
    }

    public Optional<String> text() {
        if (!present()) {
            return Optional.empty();
        }
        if (!value.isTextual()) {
            wrong("expected text, found " + Quote.describe(value), "write the value in double quotes");
            return Optional.empty();
        }
        if (required && value.asText().isBlank()) {
            problems.error(path, "is empty", or(missingFix, "give it a value"));
            return Optional.empty();
        }
        return Optional.of(value.asText());
    }

    /** Text where blank counts as absent: an optional name left as "" means no name. */
    public Optional<String> nonBlankText() {
        return text().filter(t -> !t.isBlank());
    }

    /** A whole number from {@code min} to {@code max} ({@link #NO_MAX}: no upper bound). */
    public OptionalLong wholeNumber(long min, long max) {
        if (!present()) {
            return OptionalLong.empty();
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            wrong(
                    "expected a whole number, found " + Quote.describe(value),
                    "write a whole number without quotes, e.g. " + Math.max(min, 1));
            return OptionalLong.empty();
        }
        long number = value.asLong();
        if (number < min) {
            problems.error(
                    path,
                    (min == 0 ? "must not be negative" : "must be at least " + min) + ", found " + number,
                    or(rangeFix, range(min, max)));
            return OptionalLong.empty();
        }
        if (number > max) {
            problems.error(path, "must be at most " + max + ", found " + number, or(rangeFix, range(min, max)));
            return OptionalLong.empty();
        }
        return OptionalLong.of(number);
    }

    /** {@link #wholeNumber} for an int: at most {@link Integer#MAX_VALUE} whatever {@code max} says. */
    public Optional<Integer> integer(int min, int max) {
        OptionalLong number = wholeNumber(min, max);
        return number.isPresent() ? Optional.of((int) number.getAsLong()) : Optional.empty();
    }

    /** Any finite number. */
    public OptionalDouble number() {
        if (!present()) {
            return OptionalDouble.empty();
        }
        if (!value.isNumber() || !Double.isFinite(value.asDouble())) {
            wrong("expected a number, found " + Quote.describe(value), "write a number without quotes, e.g. 2.5");
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(value.asDouble());
    }

    public Optional<Boolean> bool() {
        if (!present()) {
            return Optional.empty();
        }
        if (!value.isBoolean()) {
            wrong("must be true or false, found " + Quote.describe(value), "write true or false without quotes");
            return Optional.empty();
        }
        return Optional.of(value.asBoolean());
    }

    /** One of {@code allowed}, matched without regard to case; returns the allowed spelling. */
    public Optional<String> choice(List<String> allowed) {
        if (!present()) {
            return Optional.empty();
        }
        if (value.isTextual()) {
            String given = value.asText().strip();
            Optional<String> match =
                    allowed.stream().filter(a -> a.equalsIgnoreCase(given)).findFirst();
            if (match.isPresent()) {
                return match;
            }
        }
        wrong(
                "must be one of " + String.join(", ", allowed) + ", found " + Quote.describe(value),
                "use one of " + String.join(", ", allowed));
        return Optional.empty();
    }

    public Optional<ConfigFields> object() {
        return object("a mapping of fields");
    }

    /** A mapping; {@code expected} names it in the complaint ("a rule (a mapping with name and logPattern)"). */
    public Optional<ConfigFields> object(String expected) {
        if (!present()) {
            return Optional.empty();
        }
        return ConfigFields.of(value, path, problems, expected);
    }

    public List<Field> list() {
        return list("a list");
    }

    /** A list's elements with their paths; {@code expected} names the list in the complaint. */
    public List<Field> list(String expected) {
        if (!present()) {
            return List.of();
        }
        if (!value.isArray()) {
            wrong("expected " + expected + ", found " + Quote.describe(value), "make it a list [...]");
            return List.of();
        }
        if (required && value.isEmpty()) {
            problems.error(path, "is empty", or(missingFix, "give it at least one element"));
        }
        List<Field> elements = new ArrayList<>(value.size());
        for (int i = 0; i < value.size(); i++) {
            elements.add(new Field(value.get(i), path.index(i), problems));
        }
        return elements;
    }

    public void error(String message, String fixIt) {
        problems.error(path, message, fixIt);
    }

    public void warning(String message, String fixIt) {
        problems.warning(path, message, fixIt);
    }

    /** True when there is a value to read; reports a required one that is missing. */
    private boolean present() {
        if (isPresent()) {
            return true;
        }
        if (required) {
            problems.error(path, "required field is missing", or(missingFix, "add it"));
        }
        return false;
    }

    private void wrong(String message, String fix) {
        problems.error(path, message, fix);
    }

    private static String or(String given, String generic) {
        return given.isEmpty() ? generic : given;
    }

    private static String range(long min, long max) {
        return max == NO_MAX ? "use " + min + " or more" : String.format(Locale.ROOT, "use %d to %d", min, max);
    }
}
