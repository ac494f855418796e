package org.slurmautoresume.slurm.hostlist;

/**
 * The numbers between one pair of brackets, e.g. {@code [01-10,15]}, in the order written.
 *
 * <p>Each range keeps the width of its low end as written ({@code 01-10} has width 2,
 * {@code 1-010} width 1): Slurm pads every number of a range to the width of its low end and
 * ignores how the high end was written.
 */
final class BracketGroup {

    private final long[] lo;
    private final long[] hi;
    private final int[] width;
    private final long count;
    private final int maxLength;

    BracketGroup(long[] lo, long[] hi, int[] width) {
        this.lo = lo;
        this.hi = hi;
        this.width = width;
        long total = 0;
        int longest = 0;
        for (int r = 0; r < lo.length; r++) {
            // Each range holds at most Slurm's 65536 and there are at most 262144 ranges: no overflow.
            total += hi[r] - lo[r] + 1;
            longest = Math.max(longest, Digits.maxLength(hi[r], width[r]));
        }
        this.count = total;
        this.maxLength = longest;
    }

    int ranges() {
        return lo.length;
    }

    long lo(int range) {
        return lo[range];
    }

    long hi(int range) {
        return hi[range];
    }

    int width(int range) {
        return width[range];
    }

    /** Number of values the group stands for, duplicates included. */
    long count() {
        return count;
    }

    /** The longest number this group writes, in characters. */
    int maxLength() {
        return maxLength;
    }
}
