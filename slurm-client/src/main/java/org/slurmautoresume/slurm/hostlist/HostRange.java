package org.slurmautoresume.slurm.hostlist;

/**
 * Slurm's {@code hostrange_t}: hosts {@code prefix + lo .. prefix + hi}, each number zero-padded
 * to {@code width}, or a single host without numeric suffix whose whole name is the prefix.
 *
 * <p>Mutable on purpose: Slurm's comparison adjusts {@code width} as a side effect (see
 * {@link #widthsCombine}) and its sort and merge steps edit {@code lo} and {@code hi} in place;
 * reproducing its output means reproducing those edits.
 */
final class HostRange {

    final String prefix;
    final boolean single;
    long lo;
    long hi;
    int width;

    private HostRange(String prefix, boolean single, long lo, long hi, int width) {
        this.prefix = prefix;
        this.single = single;
        this.lo = lo;
        this.hi = hi;
        this.width = width;
    }

    static HostRange single(String name) {
        return new HostRange(name, true, 0, 0, 0);
    }

    static HostRange numbered(String prefix, long lo, long hi, int width) {
        return new HostRange(prefix, false, lo, hi, width);
    }

    /** Whether more than one host is in the range. */
    boolean holdsSeveral() {
        return !single && hi > lo;
    }

    /**
     * Slurm's prefix order: natural order of the prefixes; for equal prefixes a name without
     * numeric suffix ({@code n}) comes before numbered ones ({@code n1}).
     */
    static int comparePrefixes(HostRange a, HostRange b) {
        int byText = a.prefix == b.prefix ? 0 : NaturalOrder.compare(a.prefix, b.prefix);
        return byText != 0 ? byText : Boolean.compare(b.single, a.single);
    }

    /**
     * Slurm's sort order: prefix, then the low end when the widths are compatible, else the width.
     *
     * <p>Slurm subtracts the low ends and truncates the difference to a C {@code int}, which
     * mis-orders numbers 2^31 or more apart and then loses hosts ({@code n4294967296,n0} comes out
     * of {@code hostlistsorted} as {@code n[4294967296]}). This compares the numbers correctly; the
     * order is the same for every pair Slurm orders right.
     */
    static int compare(HostRange a, HostRange b) {
        int order = comparePrefixes(a, b);
        if (order == 0) {
            order = widthsCombine(a, b) ? Long.compare(a.lo, b.lo) : Integer.compare(a.width, b.width);
        }
        return order;
    }

    /** Whether {@code a} and {@code b} belong in one pair of brackets when printed. */
    static boolean sameBracket(HostRange a, HostRange b) {
        return b != null && comparePrefixes(a, b) == 0 && !a.single && !b.single;
    }

    /**
     * Slurm's {@code _width_equiv}: two widths are compatible when they are equal or when using
     * either one for both low ends would change the padding of neither. When compatible, one of the
     * widths is overwritten by the other (this is how {@code n9,n10} becomes {@code n[9-10]}).
     */
    static boolean widthsCombine(HostRange a, HostRange b) {
        if (a.width == b.width) {
            return true;
        }
        int aOwn = Digits.zerosToPad(a.lo, a.width);
        int aOther = Digits.zerosToPad(a.lo, b.width);
        int bOwn = Digits.zerosToPad(b.lo, b.width);
        int bOther = Digits.zerosToPad(b.lo, a.width);
        if (aOwn != aOther && bOwn != bOther) {
            return false;
        }
        if (aOwn != aOther) {
            b.width = a.width;
        } else {
            a.width = b.width;
        }
        return true;
    }

    /**
     * Slurm's {@code hostrange_intersect}: the hosts {@code a}, sorted just before {@code b}, shares
     * with {@code b}; null when they share none.
     *
     * <p>One deliberate difference: a pair whose low ends are out of order is treated as sharing
     * nothing. Slurm's sort can leave such a pair behind (a later width adjustment makes two ranges
     * comparable that were sorted by width), and Slurm then frees a range it goes on reading, which
     * with glibc's allocator drops hosts: {@code N99,N100,N99,N100,N098,N099} comes out of
     * {@code hostlistsorted} as {@code N[99,99-100,100]}, without N098 and one N099. Here it is
     * {@code N[99,99-100,100,098-099]}. Every other pair is handled exactly as Slurm does.
     */
    static HostRange intersection(HostRange a, HostRange b) {
        if (a.single || b.single || a.lo > b.lo) {
            return null;
        }
        if (a.hi > b.lo && comparePrefixes(a, b) == 0 && widthsCombine(a, b)) {
            return numbered(a.prefix, b.lo, Math.min(a.hi, b.hi), a.width);
        }
        return null;
    }
}
