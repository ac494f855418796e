package org.slurmautoresume.slurm.hostlist;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Parses a hostlist expression into {@link Term}s with a single left-to-right scan (no regex).
 *
 * <p>It accepts the part of Slurm 22.05's syntax that Slurm itself parses deliberately and refuses
 * the rest with a {@link HostlistException}: every expression accepted here means the same hosts,
 * in the same order, to {@code scontrol show hostnames}. What Slurm accepts only by accident of its
 * C parser (an unclosed {@code [} becoming a host named {@code n]}, {@code strtoul} reading
 * {@code [ 2]} as {@code 02}, errors in inner bracket groups being dropped silently) is refused.
 */
final class HostlistParser {

    /** Slurm's {@code MAX_RANGE}: hosts in one {@code lo-hi} range. */
    static final int MAX_HOSTS_PER_RANGE = 64 * 1024;
    /** Slurm's {@code MAX_PREFIX_CNT}: values of a bracket group that is not the last of its term. */
    static final int MAX_VALUES_PER_INNER_GROUP = 64 * 1024;
    /** Slurm's {@code MAX_RANGES}: ranges between one pair of brackets (Slurm aborts beyond it). */
    static final int MAX_RANGES_PER_GROUP = 256 * 1024;

    private final String input;
    private int pos;

    // Scratch space reused for every term and bracket: a hostlist from Slurm can hold a hundred
    // thousand of them, and per-term lists would be most of the parser's garbage.
    private final List<String> texts = new ArrayList<>();
    private final List<BracketGroup> groups = new ArrayList<>();
    private int[] groupStarts = new int[4];
    private long[] lo = new long[16];
    private long[] hi = new long[16];
    private int[] width = new int[16];

    private HostlistParser(String input) {
        this.input = input;
    }

    static List<Term> parse(String expression) {
        return new HostlistParser(expression).terms();
    }

    /** Slurm splits terms at commas, spaces and tabs, but never inside brackets. */
    static boolean isSeparator(char c) {
        return c == ',' || c == ' ' || c == '\t';
    }

    static boolean isControl(char c) {
        return c < 0x20 || c == 0x7f;
    }

    private List<Term> terms() {
        List<Term> terms = new ArrayList<>();
        int n = input.length();
        while (pos < n) {
            if (isSeparator(input.charAt(pos))) {
                pos++;
            } else {
                terms.add(term());
            }
        }
        return terms;
    }

    private Term term() {
        texts.clear();
        groups.clear();
        int n = input.length();
        int textStart = pos;
        while (pos < n) {
            char c = input.charAt(pos);
            if (isSeparator(c)) {
                break;
            } else if (c == '[') {
                texts.add(input.substring(textStart, pos));
                if (groups.size() == groupStarts.length) {
                    groupStarts = Arrays.copyOf(groupStarts, groupStarts.length * 2);
                }
                groupStarts[groups.size()] = pos;
                groups.add(group());
                textStart = pos;
            } else if (c == ']') {
                throw error(pos, "']' without a matching '['");
            } else if (isControl(c)) {
                throw error(pos, String.format("control character U+%04X is not allowed", (int) c));
            } else {
                pos++;
            }
        }
        if (groups.isEmpty()) {
            return Term.plain(input.substring(textStart, pos));
        }
        if (textStart < pos) {
            throw error(
                    textStart,
                    "text \"" + input.substring(textStart, pos)
                            + "\" after the last ']': Slurm 22.05 requires a term to end with a bracket group"
                            + " (write rack[1-2]-gpu[1-4], or list the names)");
        }
        for (int g = 0; g < groups.size() - 1; g++) {
            long values = groups.get(g).count();
            if (values > MAX_VALUES_PER_INNER_GROUP) {
                throw error(
                        groupStarts[g],
                        "this bracket group stands for " + values
                                + " values; Slurm allows at most " + MAX_VALUES_PER_INNER_GROUP
                                + " in a group that is not the last of its term");
            }
        }
        return new Term(texts.toArray(new String[0]), groups.toArray(new BracketGroup[0]));
    }

    /** Parses {@code [range,range,...]} starting at the '['; leaves {@link #pos} after the ']'. */
    private BracketGroup group() {
        int open = pos++;
        int count = 0;
        while (true) {
            if (count == MAX_RANGES_PER_GROUP) {
                throw error(
                        pos, "more than " + MAX_RANGES_PER_GROUP + " ranges in one pair of brackets (Slurm's limit)");
            }
            if (count == lo.length) {
                int grown = Math.min(lo.length * 2, MAX_RANGES_PER_GROUP);
                lo = Arrays.copyOf(lo, grown);
                hi = Arrays.copyOf(hi, grown);
                width = Arrays.copyOf(width, grown);
            }
            int rangeStart = pos;
            int loEnd = digits(open, "a number");
            lo[count] = number(rangeStart, loEnd);
            width[count] = loEnd - rangeStart;
            hi[count] = lo[count];
            if (pos < input.length() && input.charAt(pos) == '-') {
                int hiStart = ++pos;
                int hiEnd = digits(open, "the upper end of the range");
                hi[count] = number(hiStart, hiEnd);
            }
            checkRange(rangeStart, lo[count], hi[count]);
            count++;
            char next = pos < input.length() ? input.charAt(pos) : 0;
            if (next == ',') {
                pos++;
            } else if (next == ']') {
                pos++;
                return new BracketGroup(
                        Arrays.copyOf(lo, count), Arrays.copyOf(hi, count), Arrays.copyOf(width, count));
            } else {
                throw unexpected(open, "',', '-' or ']'");
            }
        }
    }

    /** Consumes a run of digits; returns its end. */
    private int digits(int open, String expected) {
        int start = pos;
        while (pos < input.length() && Digits.isDigit(input.charAt(pos))) {
            pos++;
        }
        if (pos == start) {
            throw unexpected(open, expected);
        }
        return pos;
    }

    private long number(int from, int to) {
        long value = Digits.parse(input, from, to);
        if (value < 0) {
            throw error(
                    from,
                    "number " + input.substring(from, to) + " is too large (more than " + Digits.MAX_SIGNIFICANT_DIGITS
                            + " significant digits)");
        }
        return value;
    }

    private void checkRange(int start, long low, long high) {
        if (low > high) {
            throw error(start, "range " + input.substring(start, pos) + " runs backwards (" + low + " > " + high + ")");
        }
        if (high - low + 1 > MAX_HOSTS_PER_RANGE) {
            throw error(
                    start,
                    "range " + input.substring(start, pos) + " holds " + (high - low + 1)
                            + " hosts; Slurm allows at most " + MAX_HOSTS_PER_RANGE
                            + " in one range (split it, e.g. [1-65536,65537-100000])");
        }
    }

    private HostlistException unexpected(int open, String expected) {
        if (pos >= input.length()) {
            return error(open, "'[' is never closed");
        }
        char c = input.charAt(pos);
        String why;
        if (c == ' ' || c == '\t') {
            why = "whitespace inside brackets (Slurm would read \"[1, 2]\" as 1 and the padded 02)";
        } else if (c == '[') {
            why = "brackets cannot be nested";
        } else if (c == ']' || c == ',') {
            why = "missing " + expected + " before '" + c + "'";
        } else if (isControl(c)) {
            why = String.format("control character U+%04X inside brackets", (int) c);
        } else {
            why = "expected " + expected + " inside the brackets opened at position " + open + ", found '" + c + "'";
        }
        return error(pos, why);
    }

    private HostlistException error(int position, String reason) {
        return new HostlistException("hostlist", input, position, reason);
    }
}
