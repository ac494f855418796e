package org.slurmautoresume.configfile;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * Typed, path-aware reads of one mapping's fields. A read that finds a wrong value reports it
 * (with the path and the value quoted) and returns empty, so one pass finds everything; a
 * field set to null counts as absent (in a per-job file, null clears the site's value). Every
 * field read is known: {@link #rejectUnknown()} or {@link #warnUnknown()} then reports the rest.
 */
public final class ConfigFields {

    private final JsonNode node;
    private final ConfigPath path;
    private final Problems problems;
    private final Set<String> known = new LinkedHashSet<>();

    private ConfigFields(JsonNode node, ConfigPath path, Problems problems) {
        this.node = node;
        this.path = path;
        this.problems = problems;
    }

    /** {@code node} as a mapping; anything else, absence included, is reported. */
    public static Optional<ConfigFields> of(JsonNode node, ConfigPath path, Problems problems) {
        return of(node, path, problems, "a mapping of fields");
    }

    /** As {@link #of(JsonNode, ConfigPath, Problems)}, saying what the mapping should be: "a rule (...)". */
    public static Optional<ConfigFields> of(JsonNode node, ConfigPath path, Problems problems, String expected) {
        if (node == null || !node.isObject()) {
            problems.error(
                    path,
                    "expected " + expected + ", found " + Quote.describe(node),
                    "write it as a mapping of names to values");
            return Optional.empty();
        }
        return Optional.of(new ConfigFields(node, path, problems));
    }

    /** A mapping that may be left out (absent or null: empty, nothing reported). */
    public static Optional<ConfigFields> ofOptional(JsonNode node, ConfigPath path, Problems problems) {
        return isAbsent(node) ? Optional.empty() : of(node, path, problems);
    }

    /** Absent, or set to null. */
    public static boolean isAbsent(JsonNode node) {
        return node == null || node.isMissingNode() || node.isNull();
    }

    public ConfigPath path() {
        return path;
    }

    public ConfigPath pathOf(String name) {
        return path.field(name);
    }

    public Problems problems() {
        return problems;
    }

    /** The mapping itself, for checks across its fields. */
    public JsonNode node() {
        return node;
    }

    /** A field to read; it counts as known from now on. */
    public Field field(String name) {
        known.add(name);
        return new Field(node.get(name), path.field(name), problems);
    }

    /** Whether the field is set (not absent, not null); it counts as known. */
    public boolean has(String name) {
        return field(name).isPresent();
    }

    public Optional<String> text(String name) {
        return field(name).text();
    }

    public OptionalLong wholeNumber(String name, long min, long max) {
        return field(name).wholeNumber(min, max);
    }

    public OptionalDouble number(String name) {
        return field(name).number();
    }

    public Optional<Boolean> bool(String name) {
        return field(name).bool();
    }

    public Optional<String> choice(String name, List<String> allowed) {
        return field(name).choice(allowed);
    }

    public Optional<ConfigFields> object(String name) {
        return field(name).object();
    }

    public List<Field> list(String name) {
        return field(name).list();
    }

    /** Fields known here though not read through this object (read elsewhere, or part of a larger API). */
    public void accept(Collection<String> names) {
        known.addAll(names);
    }

    /** A section of exactly these fields: any other is an error, reported now. */
    public void only(Collection<String> names) {
        accept(names);
        rejectUnknown();
    }

    public void error(String name, String message, String fix) {
        problems.error(path.field(name), message, fix);
    }

    public void error(String name, String message) {
        problems.error(path.field(name), message);
    }

    public void warning(String name, String message, String fix) {
        problems.warning(path.field(name), message, fix);
    }

    public void warning(String name, String message) {
        problems.warning(path.field(name), message);
    }

    /** Each field no read asked for is an error: a misspelt limit silently ignored is worse than none. */
    public void rejectUnknown() {
        unknown(Severity.ERROR);
    }

    /** Each field no read asked for is a warning ("ignored"), for files that belong to a larger API. */
    public void warnUnknown() {
        unknown(Severity.WARNING);
    }

    /**
     * A warning says "ignored" and leaves the known names to its fix, which its readers print; an
     * error names them in the message itself, the one line its readers see.
     */
    private void unknown(Severity severity) {
        String list = String.join(", ", new TreeSet<>(known));
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (known.contains(name)) {
                continue;
            }
            String fix = closest(name)
                    .map(k -> "did you mean \"" + k + "\"? Field names are case-sensitive")
                    .orElse("remove it, or check its spelling against the known fields: " + list);
            if (severity == Severity.ERROR) {
                problems.error(path.field(name), "unknown field; known here: " + list, fix);
            } else {
                problems.warning(path.field(name), "unknown field, ignored", fix);
            }
        }
    }

    /** The known name within two edits of {@code name}, ignoring case. */
    private Optional<String> closest(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = 3;
        for (String candidate : known) {
            int d = distance(lower, candidate.toLowerCase(Locale.ROOT), bestDistance);
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return Optional.ofNullable(best);
    }

    /** Levenshtein distance, or {@code limit} once it is certain to reach it (keys may be 10 kB long). */
    private static int distance(String a, String b, int limit) {
        if (Math.abs(a.length() - b.length()) >= limit) {
            return limit;
        }
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
        return Math.min(previous[b.length()], limit);
    }
}
