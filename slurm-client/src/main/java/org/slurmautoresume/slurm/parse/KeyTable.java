package org.slurmautoresume.slurm.parse;

import java.util.Set;

/**
 * Finds a known key in a region of a line without creating a substring, and hands back the
 * one shared String for it. Parsing 10,000 node records meets each key 10,000 times; this
 * keeps those lookups free of garbage.
 */
final class KeyTable {

    private final String[] slots;
    private final int mask;

    KeyTable(Set<String> keys) {
        int size = Integer.highestOneBit(Math.max(4, keys.size() * 4) - 1) << 1;
        slots = new String[size];
        mask = size - 1;
        for (String key : keys) {
            int i = hash(key, 0, key.length()) & mask;
            while (slots[i] != null) {
                i = (i + 1) & mask;
            }
            slots[i] = key;
        }
    }

    /** The known key equal to {@code text[start, end)}, or null. */
    String find(String text, int start, int end) {
        int length = end - start;
        int i = hash(text, start, end) & mask;
        while (true) {
            String slot = slots[i];
            if (slot == null) {
                return null;
            }
            if (slot.length() == length && text.regionMatches(start, slot, 0, length)) {
                return slot;
            }
            i = (i + 1) & mask;
        }
    }

    private static int hash(String text, int start, int end) {
        int h = 0;
        for (int i = start; i < end; i++) {
            h = 31 * h + text.charAt(i);
        }
        return h ^ (h >>> 16);
    }
}
