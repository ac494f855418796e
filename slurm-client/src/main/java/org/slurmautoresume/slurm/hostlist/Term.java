package org.slurmautoresume.slurm.hostlist;

import java.util.List;

/**
 * One comma- or space-separated term of a hostlist: either a plain host name, or text and bracket
 * groups ending with a bracket group, e.g. {@code rack[1-2]-gpu[01-08]}.
 */
final class Term {

    /** {@code texts[i]} precedes {@code groups[i]}; a plain name is one text and no group. */
    private final String[] texts;

    private final BracketGroup[] groups;

    private static final BracketGroup[] NO_GROUPS = new BracketGroup[0];

    Term(String[] texts, BracketGroup[] groups) {
        this.texts = texts;
        this.groups = groups;
    }

    static Term plain(String name) {
        return new Term(new String[] {name}, NO_GROUPS);
    }

    /** Number of hosts, saturating at {@link Long#MAX_VALUE}. */
    long count() {
        long n = 1;
        for (BracketGroup group : groups) {
            n = Counting.multiply(n, group.count());
        }
        return n;
    }

    /**
     * Appends the hosts in Slurm's order. Slurm's parser peels bracket groups off the end of the
     * term: the last group varies fastest, then the first, the second, and so on, so the group just
     * before the last one varies slowest ({@code x[1-2]y[1-2]z[1-2]} gives x1y1z1 x1y1z2 x2y1z1
     * x2y1z2 x1y2z1 ...).
     */
    void appendHosts(List<String> out) {
        if (groups.length == 0) {
            out.add(texts[0]);
            return;
        }
        int prefixGroups = groups.length - 1;
        int capacity = groups[prefixGroups].maxLength();
        for (int g = 0; g < groups.length; g++) {
            capacity += texts[g].length() + (g < prefixGroups ? groups[g].maxLength() : 0);
        }
        char[] buf = new char[capacity];
        int[] range = new int[prefixGroups];
        long[] value = new long[prefixGroups];
        for (int g = 0; g < prefixGroups; g++) {
            value[g] = groups[g].lo(0);
        }
        while (true) {
            int length = 0;
            for (int g = 0; g < prefixGroups; g++) {
                length = put(buf, length, texts[g]);
                length = Digits.write(buf, length, value[g], groups[g].width(range[g]));
            }
            length = put(buf, length, texts[prefixGroups]);
            appendLastGroup(out, buf, length);
            if (!advance(range, value)) {
                return;
            }
        }
    }

    private void appendLastGroup(List<String> out, char[] buf, int prefixLength) {
        BracketGroup last = groups[groups.length - 1];
        for (int r = 0; r < last.ranges(); r++) {
            int width = last.width(r);
            for (long v = last.lo(r), hi = last.hi(r); v <= hi; v++) {
                int end = Digits.write(buf, prefixLength, v, width);
                out.add(new String(buf, 0, end));
            }
        }
    }

    /** Odometer over the prefix groups, the first group being the fastest digit. */
    private boolean advance(int[] range, long[] value) {
        for (int g = 0; g < range.length; g++) {
            BracketGroup group = groups[g];
            if (value[g] < group.hi(range[g])) {
                value[g]++;
                return true;
            }
            if (range[g] + 1 < group.ranges()) {
                range[g]++;
                value[g] = group.lo(range[g]);
                return true;
            }
            range[g] = 0;
            value[g] = group.lo(0);
        }
        return false;
    }

    private static int put(char[] buf, int offset, String text) {
        text.getChars(0, text.length(), buf, offset);
        return offset + text.length();
    }
}
