package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.util.List;

/** Left-aligned columns separated by two blanks; the last column is not padded. */
final class Table {

    private Table() {}

    static void print(PrintWriter out, List<String[]> rows) {
        int columns = rows.get(0).length;
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int c = 0; c < columns; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        StringBuilder line = new StringBuilder();
        for (String[] row : rows) {
            line.setLength(0);
            for (int c = 0; c < columns; c++) {
                line.append(row[c]);
                if (c < columns - 1) {
                    line.append(" ".repeat(widths[c] - row[c].length() + 2));
                }
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
