package org.slurmautoresume.bridge.parse;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts scontrol output into one-line records. {@code scontrol -o} already prints one record
 * per line; the default multi-line form indents continuation lines and separates records with
 * a blank line, and is folded here into the same one-line shape.
 */
final class RecordSplitter {

    private RecordSplitter() {
    }

    static List<String> records(String output) {
        List<String> records = new ArrayList<>();
        StringBuilder current = null;
        int start = 0;
        int length = output.length();
        while (start < length) {
            int end = output.indexOf('\n', start);
            if (end < 0) {
                end = length;
            }
            int contentEnd = end > start && output.charAt(end - 1) == '\r' ? end - 1 : end;
            boolean blank = isBlank(output, start, contentEnd);
            boolean continuation = !blank && Character.isWhitespace(output.charAt(start));
            if (blank) {
                current = flush(records, current);
            } else if (continuation && current != null) {
                current.append(' ').append(output, start, contentEnd);
            } else {
                flush(records, current);
                current = new StringBuilder(contentEnd - start).append(output, start, contentEnd);
            }
            start = end + 1;
        }
        flush(records, current);
        return records;
    }

    private static StringBuilder flush(List<String> records, StringBuilder current) {
        if (current != null) {
            records.add(current.toString().strip());
        }
        return null;
    }

    private static boolean isBlank(String text, int start, int end) {
        for (int i = start; i < end; i++) {
            if (!Character.isWhitespace(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
