package org.slurmautoresume.slurm.hostlist;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * Slurm's {@code hostlist_t} reduced to what compression needs: push hosts in order, optionally
 * sort them the way {@code hostlist_sort} does, print the ranged string.
 *
 * <p>Every step mirrors one of Slurm's, including the ones whose output surprises
 * ({@code n[1-5],n[3-7]} sorted prints {@code n[1-3,3-4,4-5,5-7]}), because callers compare our
 * strings with Slurm's. Where Slurm's C inserts and deletes one range at a time and restarts its
 * scans, this makes the same edits in batches and single passes.
 */
final class HostRangeList {

    private final List<HostRange> ranges;
    private final String[] recentPrefixes = new String[8];
    private int nextPrefixSlot;

    private HostRangeList(int expectedRanges) {
        this.ranges = new ArrayList<>(expectedRanges);
    }

    /** Pushes each host in turn, as {@code hostlist_create} does for a comma-separated list of names. */
    static HostRangeList of(Collection<String> hosts) {
        HostRangeList list = new HostRangeList(Math.min(hosts.size(), 1024));
        int index = 0;
        for (String host : hosts) {
            list.pushHost(host, index++);
        }
        return list;
    }

    private void pushHost(String name, int index) {
        if (name == null) {
            throw new HostlistException("host name", "null", -1, "element " + index + " of the collection is null");
        }
        checkPlainName(name, index);
        int length = name.length();
        int digitsStart = length;
        while (digitsStart > 0 && Digits.isDigit(name.charAt(digitsStart - 1))) {
            digitsStart--;
        }
        long number = digitsStart == length ? -1 : Digits.parse(name, digitsStart, length);
        if (number < 0) {
            // No numeric suffix, or one too long to be a node number: keep the name whole. (Slurm
            // would clamp an over-long suffix to 2^64-1 and print a different name.)
            push(HostRange.single(name));
            return;
        }
        push(HostRange.numbered(prefixOf(name, digitsStart), number, number, length - digitsStart));
    }

    /**
     * The prefix as a String shared with earlier hosts of the same prefix: lists hold few distinct
     * prefixes, and sharing them saves a String per host and lets comparisons stop at identity.
     */
    private String prefixOf(String name, int length) {
        for (String known : recentPrefixes) {
            if (known == null) {
                break;
            }
            if (known.length() == length && name.regionMatches(0, known, 0, length)) {
                return known;
            }
        }
        String prefix = name.substring(0, length);
        recentPrefixes[nextPrefixSlot] = prefix;
        nextPrefixSlot = (nextPrefixSlot + 1) % recentPrefixes.length;
        return prefix;
    }

    private static void checkPlainName(String name, int index) {
        if (name.isEmpty()) {
            throw new HostlistException("host name", name, -1, "element " + index + " of the collection is empty");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c > ']' && c != 0x7f) {
                continue; // lower-case letters and most punctuation: the common case
            }
            if (HostlistParser.isSeparator(c) || c == '[' || c == ']' || HostlistParser.isControl(c)) {
                String shown = HostlistParser.isControl(c) ? String.format("U+%04X", (int) c) : "'" + c + "'";
                throw new HostlistException(
                        "host name",
                        name,
                        i,
                        "element " + index
                                + " of the collection contains " + shown
                                + "; compress takes single host names (expand hostlists first)");
            }
        }
    }

    /** Slurm's {@code hostlist_push_range}: extend the last range when the host continues it. */
    private void push(HostRange range) {
        if (!ranges.isEmpty()) {
            HostRange tail = ranges.get(ranges.size() - 1);
            if (tail.hi == range.lo - 1
                    && HostRange.comparePrefixes(tail, range) == 0
                    && HostRange.widthsCombine(tail, range)) {
                tail.hi = range.hi;
                return;
            }
        }
        ranges.add(range);
    }

    /** Slurm's {@code hostlist_sort}: a stable merge sort, then merging of overlaps and neighbours. */
    void sort() {
        if (ranges.size() <= 1) {
            return;
        }
        HostRange[] array = ranges.toArray(new HostRange[0]);
        mergeSort(array, 0, array.length, new HostRange[array.length]);
        ranges.clear();
        ranges.addAll(Arrays.asList(array));
        coalesce();
        collapse();
    }

    /**
     * The merge sort glibc's {@code qsort} runs for Slurm (same halves, same comparisons, same
     * tie-breaking): Slurm's comparison edits widths as it goes, so a different sort algorithm
     * would print different strings.
     */
    private static void mergeSort(HostRange[] a, int from, int n, HostRange[] tmp) {
        if (n <= 1) {
            return;
        }
        int n1 = n / 2;
        int n2 = n - n1;
        mergeSort(a, from, n1, tmp);
        mergeSort(a, from + n1, n2, tmp);
        int left = from;
        int right = from + n1;
        int out = 0;
        while (n1 > 0 && n2 > 0) {
            if (HostRange.compare(a[left], a[right]) <= 0) {
                tmp[out++] = a[left++];
                n1--;
            } else {
                tmp[out++] = a[right++];
                n2--;
            }
        }
        System.arraycopy(a, left, tmp, out, n1);
        System.arraycopy(tmp, 0, a, from, n - n2);
    }

    /**
     * Slurm's {@code hostlist_coalesce}: where two neighbouring ranges overlap, the shared hosts are
     * cut out into single-host ranges, each kept twice (sorting does not remove duplicates).
     */
    private void coalesce() {
        for (int i = ranges.size() - 1; i > 0; i--) {
            HostRange prev = ranges.get(i - 1);
            HostRange next = ranges.get(i);
            HostRange common = HostRange.intersection(prev, next);
            if (common == null) {
                continue;
            }
            if (common.hi < prev.hi) {
                next.hi = prev.hi;
            }
            prev.hi = common.lo;
            next.lo = common.hi;
            List<HostRange> shared = new ArrayList<>();
            for (long host = common.lo; host <= common.hi; host++) {
                if (host > prev.hi) {
                    shared.add(HostRange.numbered(common.prefix, host, host, common.width));
                }
                if (host < next.lo) {
                    shared.add(HostRange.numbered(common.prefix, host, host, common.width));
                }
            }
            ranges.addAll(i, shared);
            // Slurm rescans from the end; the pairs after the edited ones were already found
            // disjoint, and finding a pair disjoint changes nothing, so resume just past the edit.
            i = Math.min(i + shared.size() + 2, ranges.size());
        }
    }

    /** Slurm's {@code hostlist_collapse}, walking from the end: join a range to the next when they touch. */
    private void collapse() {
        int n = ranges.size();
        if (n <= 1) {
            return;
        }
        List<HostRange> reversed = new ArrayList<>(n);
        HostRange next = ranges.get(n - 1);
        for (int i = n - 1; i > 0; i--) {
            HostRange prev = ranges.get(i - 1);
            if (prev.hi == next.lo - 1
                    && HostRange.comparePrefixes(prev, next) == 0
                    && HostRange.widthsCombine(prev, next)) {
                prev.hi = next.hi;
            } else {
                reversed.add(next);
            }
            next = prev;
        }
        reversed.add(next);
        Collections.reverse(reversed);
        ranges.clear();
        ranges.addAll(reversed);
    }

    /** Slurm's {@code hostlist_ranged_string}: {@code prefix[a-b,c]} for neighbours sharing a prefix. */
    String toRangedString() {
        StringBuilder sb = new StringBuilder(Math.max(16, ranges.size() * 8));
        int n = ranges.size();
        int i = 0;
        while (i < n) {
            if (i > 0) {
                sb.append(',');
            }
            HostRange first = ranges.get(i);
            boolean brackets =
                    first.holdsSeveral() || HostRange.sameBracket(first, i + 1 < n ? ranges.get(i + 1) : null);
            sb.append(first.prefix);
            if (brackets) {
                sb.append('[');
            }
            int start = i;
            do {
                if (i > start) {
                    sb.append(',');
                }
                appendNumbers(sb, ranges.get(i));
            } while (++i < n && HostRange.sameBracket(ranges.get(i), ranges.get(i - 1)));
            if (brackets) {
                sb.append(']');
            }
        }
        return sb.toString();
    }

    private static void appendNumbers(StringBuilder sb, HostRange range) {
        if (range.single) {
            return;
        }
        Digits.append(sb, range.lo, range.width);
        if (range.lo < range.hi) {
            sb.append('-');
            Digits.append(sb, range.hi, range.width);
        }
    }
}
