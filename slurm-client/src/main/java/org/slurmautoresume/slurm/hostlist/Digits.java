package org.slurmautoresume.slurm.hostlist;

/** Decimal numbers written the way Slurm's {@code printf("%0*lu")} writes them, without regex or boxing. */
final class Digits {

    /**
     * Numbers are kept below 10^18 so that every range arithmetic fits in a {@code long}; Slurm's
     * {@code unsigned long} goes to 2^64-1 but a node number that large is a typo, not a node.
     */
    static final int MAX_SIGNIFICANT_DIGITS = 18;

    private Digits() {}

    static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** Number of decimal digits of {@code value} (at least 1), as Slurm counts them for padding. */
    static int count(long value) {
        int n = 1;
        while ((value /= 10) != 0) {
            n++;
        }
        return n;
    }

    /** Zeros needed to pad {@code value} to {@code width}; Slurm's {@code _zero_padded}. */
    static int zerosToPad(long value, int width) {
        int n = count(value);
        return width > n ? width - n : 0;
    }

    /**
     * Parses the digits {@code s[from, to)}; returns -1 when there are more than
     * {@link #MAX_SIGNIFICANT_DIGITS} significant digits. The caller has checked they are digits.
     */
    static long parse(CharSequence s, int from, int to) {
        int i = from;
        while (i < to - 1 && s.charAt(i) == '0') {
            i++;
        }
        if (to - i > MAX_SIGNIFICANT_DIGITS) {
            return -1;
        }
        long value = 0;
        for (; i < to; i++) {
            value = value * 10 + (s.charAt(i) - '0');
        }
        return value;
    }

    /** Writes {@code value} zero-padded to {@code width} at {@code buf[offset]}; returns the new end. */
    static int write(char[] buf, int offset, long value, int width) {
        int digits = count(value);
        int end = offset + Math.max(width, digits);
        for (int i = offset; i < end - digits; i++) {
            buf[i] = '0';
        }
        int i = end;
        do {
            buf[--i] = (char) ('0' + (value % 10));
            value /= 10;
        } while (value != 0);
        return end;
    }

    /** Appends {@code value} zero-padded to {@code width}. */
    static void append(StringBuilder sb, long value, int width) {
        for (int pad = zerosToPad(value, width); pad > 0; pad--) {
            sb.append('0');
        }
        sb.append(value);
    }

    /** The longest text {@link #write} produces for values up to {@code max} at {@code width}. */
    static int maxLength(long max, int width) {
        return Math.max(count(max), width);
    }
}
