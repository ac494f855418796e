package org.slurmautoresume.slurm.hostlist;

/**
 * The "natural" string order Slurm sorts host name prefixes with (its {@code strnatcmp}): runs of
 * digits compare as numbers ({@code rack2 < rack10}), except that a run starting with '0' compares
 * digit by digit, as a fraction would; whitespace is ignored.
 *
 * <p>Slurm compares C {@code char}s, which are signed on the machines it runs on, so any byte of a
 * non-ASCII character sorts before every ASCII character and before the end of the string. Java
 * characters at or above U+0080 are given the same treatment; their order among themselves is
 * code-unit order, which matches Slurm's UTF-8 byte order for all but the rare supplementary
 * characters.
 */
final class NaturalOrder {

    private NaturalOrder() {}

    static int compare(String a, String b) {
        if (a.equals(b)) {
            return 0;
        }
        int i = 0;
        int j = 0;
        while (true) {
            i = skipSpace(a, i);
            j = skipSpace(b, j);
            int ca = at(a, i);
            int cb = at(b, j);
            if (isDigit(ca) && isDigit(cb)) {
                int byNumber = (ca == '0' || cb == '0') ? digitByDigit(a, i, b, j) : byMagnitude(a, i, b, j);
                if (byNumber != 0) {
                    return byNumber;
                }
                // Equal runs: the character loop below walks through them.
            }
            if (ca == 0 && cb == 0) {
                return 0;
            }
            if (ca != cb) {
                return ca < cb ? -1 : 1;
            }
            i++;
            j++;
        }
    }

    /** Longer run of digits is greater; between runs of equal length the first difference decides. */
    private static int byMagnitude(String a, int i, String b, int j) {
        int firstDifference = 0;
        while (true) {
            int ca = at(a, i++);
            int cb = at(b, j++);
            boolean da = isDigit(ca);
            boolean db = isDigit(cb);
            if (!da || !db) {
                return da == db ? firstDifference : (da ? 1 : -1);
            }
            if (firstDifference == 0 && ca != cb) {
                firstDifference = ca < cb ? -1 : 1;
            }
        }
    }

    /** Runs with a leading zero compare like the digits after a decimal point. */
    private static int digitByDigit(String a, int i, String b, int j) {
        while (true) {
            int ca = at(a, i++);
            int cb = at(b, j++);
            boolean da = isDigit(ca);
            boolean db = isDigit(cb);
            if (!da || !db) {
                return da == db ? 0 : (da ? 1 : -1);
            }
            if (ca != cb) {
                return ca < cb ? -1 : 1;
            }
        }
    }

    /** The character as Slurm's signed {@code char} would order it; 0 past the end. */
    private static int at(String s, int index) {
        if (index >= s.length()) {
            return 0;
        }
        char c = s.charAt(index);
        return c < 0x80 ? c : c - 0x10000;
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private static int skipSpace(String s, int index) {
        while (index < s.length() && isSpace(s.charAt(index))) {
            index++;
        }
        return index;
    }

    private static boolean isSpace(char c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }
}
