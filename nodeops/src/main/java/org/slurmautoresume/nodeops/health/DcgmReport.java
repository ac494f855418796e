package org.slurmautoresume.nodeops.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the boxed table {@code dcgmi health -c} prints: rows of {@code | left | right |} cells;
 * only the cells matter, the borders do not. (The diagnostic is read from its JSON:
 * {@link DcgmDiagJson}.)
 */
public final class DcgmReport {

    /** The health report: overall verdict (Healthy, Warning, Failure) and every line that is not "Healthy"/"Pass". */
    public record Health(Optional<String> overall, List<String> details) {}

    private static final Pattern OVERALL =
            Pattern.compile("Overall Health\\s*[:|]\\s*(Healthy|Warning|Failure)", Pattern.CASE_INSENSITIVE);

    private DcgmReport() {}

    public static Health health(String text) {
        Matcher m = OVERALL.matcher(text);
        Optional<String> overall = m.find() ? Optional.of(capitalised(m.group(1))) : Optional.empty();
        List<String> details = new ArrayList<>();
        boolean previousWasMessage = false;
        for (String[] row : rows(text)) {
            String joined = (row[0] + " " + row[1]).strip().replaceAll("\\s+", " ");
            if (joined.isEmpty()
                    || joined.toLowerCase(Locale.ROOT).contains("overall health")
                    || joined.equalsIgnoreCase("Health Monitor Report")) {
                continue;
            }
            // rows with an empty right cell are headings (GPU, Errors); "Healthy" rows say nothing
            if (row[1].isEmpty() || row[1].equalsIgnoreCase("healthy")) {
                previousWasMessage = false;
                continue;
            }
            boolean message = row[0].isEmpty();
            if (message && previousWasMessage) {
                details.set(details.size() - 1, details.get(details.size() - 1) + " " + joined);
            } else {
                details.add(joined);
            }
            previousWasMessage = message;
        }
        return new Health(overall, details);
    }

    /** The two cells of every {@code | a | b |} line, trimmed; section rules ({@code |---- x ---+----|}) are skipped. */
    private static List<String[]> rows(String text) {
        List<String[]> rows = new ArrayList<>();
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (!line.startsWith("|") || line.startsWith("|--") || line.startsWith("|==")) {
                continue;
            }
            String inner = line.substring(1, line.endsWith("|") ? line.length() - 1 : line.length());
            int bar = inner.indexOf('|');
            String left = bar < 0 ? inner : inner.substring(0, bar);
            String right = bar < 0 ? "" : inner.substring(bar + 1);
            rows.add(new String[] {left.replaceFirst("^[\\s\\-]*>?", "").strip(), right.strip()});
        }
        return rows;
    }

    private static String capitalised(String word) {
        String lower = word.toLowerCase(Locale.ROOT);
        return Character.toUpperCase(lower.charAt(0)) + lower.substring(1);
    }
}
