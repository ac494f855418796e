package org.slurmautoresume.slurm.parse;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.slurmautoresume.slurm.model.RawFields;

/**
 * Splits one {@code scontrol -o} record ({@code Key=Value Key=Value ...}) into fields.
 *
 * <p>Values may contain spaces and {@code =} ({@code OS=Linux 6.1 #1 SMP ...},
 * {@code Reason=bad gpu count=7 [root@...]}), so blanks alone cannot separate fields. A field
 * starts at a blank followed by a key-shaped word ({@code [A-Z][A-Za-z0-9_:/]*=}): every key
 * Slurm prints starts with a capital. Inside a free-text field (Reason, OS, Comment, names,
 * paths) only a key this parser knows, and that the record has not printed yet, ends the value,
 * so text like {@code count=7} or {@code State=odd} stays put. Keys it does not know are kept,
 * never fatal: newer Slurm versions add fields.
 *
 * <p>Given a {@link PrintOrder}, the reading is one no job attribute can steer: a free-text
 * value ends only at a key scontrol prints after it, and one with an anchor no later than that
 * anchor, which must appear exactly once; a known key printed twice, or a record without a
 * required key, is refused ({@link ParseException}) rather than guessed at.
 */
public final class KeyValueLineParser {

    private final KeyTable knownKeys;
    private final Set<String> freeTextKeys;

    private final PrintOrder order;
    private final Map<String, Integer> positions;

    public KeyValueLineParser(Set<String> knownKeys, Set<String> freeTextKeys) {
        this(knownKeys, freeTextKeys, null);
    }

    public KeyValueLineParser(Set<String> knownKeys, Set<String> freeTextKeys, PrintOrder order) {
        this.knownKeys = new KeyTable(knownKeys);
        this.freeTextKeys = Set.copyOf(freeTextKeys);
        this.order = order;
        this.positions = order == null ? Map.of() : order.positions();
        for (String key : order == null ? Set.<String>of() : knownKeys) {
            if (!positions.containsKey(key)) {
                throw new IllegalArgumentException("known key missing from the print order: " + key);
            }
        }
    }

    /**
     * Parses one record (no line end). A key printed twice (scontrol -d repeats per-node
     * blocks) is kept as {@code Key#2}, {@code Key#3}, ... The result is unmodifiable and ordered.
     */
    public Map<String, String> parse(String line) {
        return order == null ? parseFree(line) : parseOrdered(line);
    }

    private Map<String, String> parseFree(String line) {
        String text = line;
        int keyEnd = keyEndAt(text, 0);
        if (keyEnd < 0) {
            throw new ParseException("a scontrol record must start with Key=Value", line);
        }
        LinkedHashMap<String, String> fields = new LinkedHashMap<>(64);
        String key = keyOf(text, 0, keyEnd);
        while (key != null) {
            boolean freeText = freeTextKeys.contains(key);
            int valueStart = keyEnd + 1;
            int nextKeyStart = -1;
            int nextKeyEnd = -1;
            String nextKey = null;
            for (int i = text.indexOf(' ', valueStart); i >= 0; i = text.indexOf(' ', i + 1)) {
                int candidate = i + 1;
                int candidateEnd = keyEndAt(text, candidate);
                if (candidateEnd < 0) {
                    continue;
                }
                String known = knownKeys.find(text, candidate, candidateEnd);
                if (freeText && (known == null || fields.containsKey(known))) {
                    continue;
                }
                nextKeyStart = candidate;
                nextKeyEnd = candidateEnd;
                nextKey = known != null ? known : text.substring(candidate, candidateEnd);
                break;
            }
            int valueEnd = nextKeyStart < 0 ? text.length() : nextKeyStart - 1;
            put(fields, key, trimmed(text, valueStart, valueEnd));
            key = nextKey;
            keyEnd = nextKeyEnd;
        }
        return RawFields.adopt(fields);
    }

    private Map<String, String> parseOrdered(String text) {
        int keyEnd = keyEndAt(text, 0);
        if (keyEnd < 0) {
            throw new ParseException("a scontrol record must start with Key=Value", text);
        }
        LinkedHashMap<String, String> fields = new LinkedHashMap<>(64);
        String key = keyOf(text, 0, keyEnd);
        while (key != null) {
            int valueStart = keyEnd + 1;
            boolean freeText = freeTextKeys.contains(key);
            // Only a user writes blanks and key-shaped words into a value; scontrol's own values
            // end at the next key, and any known key printed twice is caught below.
            int after = -1;
            int limit = Integer.MAX_VALUE;
            if (freeText) {
                after = positions.getOrDefault(key, Integer.MAX_VALUE);
                String anchor = order.anchors().get(key);
                if (anchor != null) {
                    int seen = occurrences(text, valueStart, anchor);
                    if (seen != 1) {
                        throw new ParseException(
                                anchor + "= appears " + seen + " times after " + key
                                        + "=, where scontrol prints it once: the record is ambiguous",
                                text);
                    }
                    limit = positions.get(anchor);
                }
            }
            int nextKeyStart = -1;
            int nextKeyEnd = -1;
            String nextKey = null;
            for (int i = text.indexOf(' ', valueStart); i >= 0; i = text.indexOf(' ', i + 1)) {
                int candidate = i + 1;
                int candidateEnd = keyEndAt(text, candidate);
                if (candidateEnd < 0) {
                    continue;
                }
                String known = knownKeys.find(text, candidate, candidateEnd);
                if (freeText) {
                    // A free-text value ends only where scontrol prints a later key: text in it
                    // can never make up a field printed before it, nor past its anchor.
                    Integer at = known == null ? null : positions.get(known);
                    if (at == null || at <= after || at > limit) {
                        continue;
                    }
                }
                nextKeyStart = candidate;
                nextKeyEnd = candidateEnd;
                nextKey = known != null ? known : text.substring(candidate, candidateEnd);
                break;
            }
            int valueEnd = nextKeyStart < 0 ? text.length() : nextKeyStart - 1;
            if (fields.containsKey(key)
                    && positions.containsKey(key)
                    && !order.repeatable().contains(key)) {
                throw new ParseException(
                        key + "= printed twice, where scontrol prints it once: a value was"
                                + " written to look like fields",
                        text);
            }
            put(fields, key, trimmed(text, valueStart, valueEnd));
            key = nextKey;
            keyEnd = nextKeyEnd;
        }
        for (String required : order.required()) {
            if (!fields.containsKey(required)) {
                throw new ParseException("record has no " + required, text);
            }
        }
        return RawFields.adopt(fields);
    }

    /** How often {@code key=} starts a word at or after {@code from}. */
    private static int occurrences(String text, int from, String key) {
        int seen = 0;
        for (int i = text.indexOf(' ', from); i >= 0; i = text.indexOf(' ', i + 1)) {
            int candidate = i + 1;
            if (text.startsWith(key, candidate) && text.startsWith("=", candidate + key.length())) {
                seen++;
            }
        }
        return seen;
    }

    private String keyOf(String text, int start, int end) {
        String known = knownKeys.find(text, start, end);
        return known != null ? known : text.substring(start, end);
    }

    private static String trimmed(String text, int start, int end) {
        while (start < end && text.charAt(start) == ' ') {
            start++;
        }
        while (end > start && Character.isWhitespace(text.charAt(end - 1))) {
            end--;
        }
        return start == end ? "" : text.substring(start, end);
    }

    private static void put(Map<String, String> fields, String key, String value) {
        if (!fields.containsKey(key)) {
            fields.put(key, value);
            return;
        }
        int n = 2;
        while (fields.containsKey(key + "#" + n)) {
            n++;
        }
        fields.put(key + "#" + n, value);
    }

    /** Returns the index of the '=' ending a key that starts at {@code start}, or -1. */
    private static int keyEndAt(String text, int start) {
        if (start >= text.length()) {
            return -1;
        }
        char first = text.charAt(start);
        if (first < 'A' || first > 'Z') {
            return -1;
        }
        for (int i = start + 1; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '=') {
                return i;
            }
            boolean keyChar = (c >= 'A' && c <= 'Z')
                    || (c >= 'a' && c <= 'z')
                    || (c >= '0' && c <= '9')
                    || c == '_'
                    || c == ':'
                    || c == '/';
            if (!keyChar) {
                return -1;
            }
        }
        return -1;
    }
}
