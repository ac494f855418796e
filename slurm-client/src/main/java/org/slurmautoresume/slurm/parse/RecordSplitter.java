package org.slurmautoresume.slurm.parse;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts scontrol output into one-line records. {@code scontrol -o} already prints one record
 * per line; the default multi-line form indents continuation lines and separates records with
 * a blank line, and is folded here into the same one-line shape.
 */
final class RecordSplitter {

    private RecordSplitter() {}

    static List<String> records(String output) {
        List<String> records = new ArrayList<>();
        int recordStart = -1; // start of the pending one-line record, not yet copied
        int recordEnd = -1;
        StringBuilder folded = null; // a record with continuation lines
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
            if (blank || !continuation || (recordStart < 0 && folded == null)) {
                flush(records, output, recordStart, recordEnd, folded);
                recordStart = -1;
                folded = null;
                if (!blank) {
                    recordStart = start;
                    recordEnd = contentEnd;
                }
            } else {
                if (folded == null) {
                    folded = new StringBuilder().append(output, recordStart, recordEnd);
                    recordStart = -1;
                }
                folded.append(' ').append(output, start, contentEnd);
            }
            start = end + 1;
        }
        flush(records, output, recordStart, recordEnd, folded);
        return records;
    }

    private static void flush(List<String> records, String output, int start, int end, StringBuilder folded) {
        if (folded != null) {
            records.add(folded.toString().strip());
        } else if (start >= 0) {
            records.add(output.substring(start, end).strip());
        }
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
