package org.slurmautoresume.lifecycle.apply;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The part of a configuration file that apply owns, between {@code # BEGIN autoresume managed}
 * and {@code # END autoresume managed}. Re-running apply replaces only those lines; everything
 * the admin wrote around them stays as it was.
 */
public final class ManagedBlock {

    public static final String BEGIN = "# BEGIN autoresume managed";
    public static final String END = "# END autoresume managed";
    private static final String BEGIN_LINE =
            BEGIN + " (written by `autoresume lifecycle apply`; edit its JSON files, not these lines)";

    private ManagedBlock() {}

    /** The admin's lines: the file without the managed block. */
    public static List<String> outside(String path, String text) {
        Span span = find(path, text);
        List<String> lines = lines(text);
        if (span == null) {
            return lines;
        }
        List<String> rest = new ArrayList<>(lines.subList(0, span.begin));
        rest.addAll(lines.subList(span.end + 1, lines.size()));
        return rest;
    }

    /**
     * {@code text} with its managed block holding {@code body}: in place when there is one,
     * otherwise appended at the end. An empty body removes the block.
     */
    public static String replace(String path, String text, List<String> body) {
        Span span = find(path, text);
        List<String> lines = lines(text);
        List<String> block = new ArrayList<>();
        if (!body.isEmpty()) {
            block.add(BEGIN_LINE);
            block.addAll(body);
            block.add(END);
        }
        List<String> result = new ArrayList<>();
        if (span == null) {
            result.addAll(lines);
            result.addAll(block);
        } else {
            result.addAll(lines.subList(0, span.begin));
            result.addAll(block);
            result.addAll(lines.subList(span.end + 1, lines.size()));
        }
        return result.isEmpty() ? "" : String.join("\n", result) + "\n";
    }

    private static Span find(String path, String text) {
        List<String> lines = lines(text);
        int begin = -1;
        int end = -1;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.startsWith(BEGIN)) {
                if (begin >= 0) {
                    throw new ApplyException(path + ": line " + (i + 1) + ": a second '" + BEGIN
                            + "' (the first is on line " + (begin + 1) + "); remove one of the blocks");
                }
                begin = i;
            } else if (line.startsWith(END)) {
                if (begin < 0 || end >= 0) {
                    throw new ApplyException(path + ": line " + (i + 1) + ": '" + END + "' without a matching '" + BEGIN
                            + "'; remove it");
                }
                end = i;
            }
        }
        if (begin >= 0 && end < 0) {
            throw new ApplyException(path + ": line " + (begin + 1) + ": '" + BEGIN + "' is never closed by '" + END
                    + "'; add the END line or remove the block");
        }
        return begin < 0 ? null : new Span(begin, end);
    }

    /** The lines of {@code text}, without the empty string after a final newline. */
    static List<String> lines(String text) {
        String[] parts = text.split("\n", -1);
        int count = text.endsWith("\n") || text.isEmpty() ? parts.length - 1 : parts.length;
        return Arrays.asList(parts).subList(0, count);
    }

    private record Span(int begin, int end) {}
}
