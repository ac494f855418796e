package org.slurmautoresume.bridge.parse;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Splits one {@code scontrol -o} record ({@code Key=Value Key=Value ...}) into fields.
 *
 * <p>Values may contain spaces and {@code =} ({@code OS=Linux 6.1 #1 SMP ...},
 * {@code Reason=bad gpu count=7 [root@...]}), so blanks alone cannot separate fields. A field
 * starts at a blank followed by a key-shaped word ({@code [A-Z][A-Za-z0-9_:/]*=}): every key
 * Slurm prints starts with a capital. Inside a free-text field (Reason, OS, Comment, names,
 * paths) only a key this parser knows, and that the record has not printed yet, ends the value,
 * so text like {@code count=7} or {@code State=odd} stays put.
 * Keys it does not know are kept, never fatal: newer Slurm versions add fields.
 */
public final class KeyValueLineParser {

    private final Set<String> knownKeys;
    private final Set<String> freeTextKeys;

    public KeyValueLineParser(Set<String> knownKeys, Set<String> freeTextKeys) {
        this.knownKeys = Set.copyOf(knownKeys);
        this.freeTextKeys = Set.copyOf(freeTextKeys);
    }

    /**
     * Parses one record. A key printed twice (scontrol -d repeats per-node blocks) is kept as
     * {@code Key#2}, {@code Key#3}, ...
     */
    public Map<String, String> parse(String line) {
        String text = stripLineEnd(line);
        if (keyLengthAt(text, 0) < 0) {
            throw new ParseException("a scontrol record must start with Key=Value", line);
        }
        Map<String, String> fields = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        int keyStart = 0;
        int keyEnd = keyLengthAt(text, 0);
        while (keyStart >= 0) {
            String key = text.substring(keyStart, keyEnd);
            seen.add(key);
            boolean freeText = freeTextKeys.contains(key);
            int valueStart = keyEnd + 1;
            int nextKeyStart = -1;
            int nextKeyEnd = -1;
            for (int i = valueStart; i < text.length(); i++) {
                if (text.charAt(i) != ' ') {
                    continue;
                }
                int candidate = i + 1;
                int candidateEnd = keyLengthAt(text, candidate);
                if (candidateEnd < 0) {
                    continue;
                }
                if (freeText) {
                    String candidateKey = text.substring(candidate, candidateEnd);
                    if (!knownKeys.contains(candidateKey) || seen.contains(candidateKey)) {
                        continue;
                    }
                }
                nextKeyStart = candidate;
                nextKeyEnd = candidateEnd;
                break;
            }
            String value = nextKeyStart < 0 ? text.substring(valueStart)
                    : text.substring(valueStart, nextKeyStart - 1);
            put(fields, key, value.strip());
            keyStart = nextKeyStart;
            keyEnd = nextKeyEnd;
        }
        return fields;
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
    private static int keyLengthAt(String text, int start) {
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
            boolean keyChar = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                    || c == '_' || c == ':' || c == '/';
            if (!keyChar) {
                return -1;
            }
        }
        return -1;
    }

    private static String stripLineEnd(String line) {
        int end = line.length();
        while (end > 0 && (line.charAt(end - 1) == '\n' || line.charAt(end - 1) == '\r')) {
            end--;
        }
        return line.substring(0, end);
    }
}
