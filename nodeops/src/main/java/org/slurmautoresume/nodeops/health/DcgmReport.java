package org.slurmautoresume.nodeops.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the boxed tables {@code dcgmi health -c} and {@code dcgmi diag -r N} print. Both are
 * rows of {@code | left | right |} cells; only the cells matter, the borders do not.
 */
public final class DcgmReport {

    /** The health report: overall verdict (Healthy, Warning, Failure) and every line that is not "Healthy"/"Pass". */
    public record Health(Optional<String> overall, List<String> details) {
    }

    /** One diagnostic test: its name, the verdict word (Pass, Fail, Warn, Skip) and the messages printed under it. */
    public record DiagTest(String name, String verdict, List<String> messages) {

        public boolean failed() {
            return verdict.equalsIgnoreCase("fail");
        }
    }

    private static final Pattern OVERALL = Pattern.compile("Overall Health\\s*[:|]\\s*(Healthy|Warning|Failure)",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern VERDICT = Pattern.compile("^(Pass|Fail|Warn|Skip)\\w*\\b.*", Pattern.CASE_INSENSITIVE);
    /** Rows DCGM prints under a test to explain it; the name cell says what kind of message. */
    private static final List<String> MESSAGE_ROWS = List.of("warning", "error", "info", "");

    private DcgmReport() {
    }

    public static Health health(String text) {
        Matcher m = OVERALL.matcher(text);
        Optional<String> overall = m.find() ? Optional.of(capitalised(m.group(1))) : Optional.empty();
        List<String> details = new ArrayList<>();
        boolean previousWasMessage = false;
        for (String[] row : rows(text)) {
            String joined = (row[0] + " " + row[1]).strip().replaceAll("\\s+", " ");
            if (joined.isEmpty() || joined.toLowerCase(Locale.ROOT).contains("overall health")
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

    public static List<DiagTest> diag(String text) {
        List<DiagTest> tests = new ArrayList<>();
        String name = null;
        String verdict = null;
        List<String> messages = new ArrayList<>();
        boolean continuing = false;
        for (String[] row : rows(text)) {
            Matcher m = VERDICT.matcher(row[1]);
            boolean messageRow = MESSAGE_ROWS.contains(row[0].toLowerCase(Locale.ROOT));
            if (m.matches() && !messageRow) {
                if (name != null) {
                    tests.add(new DiagTest(name, verdict, messages));
                }
                name = row[0];
                verdict = capitalised(m.group(1));
                messages = new ArrayList<>();
                String rest = row[1].substring(m.group(1).length()).replaceFirst("^\\w*\\s*-?\\s*", "").strip();
                if (!rest.isEmpty()) {
                    messages.add(rest);
                }
            } else if (name != null && messageRow && !row[1].isEmpty()) {
                if (row[0].isEmpty() && continuing) {
                    // a long message wraps onto rows with an empty left cell
                    messages.set(messages.size() - 1, messages.get(messages.size() - 1) + " " + row[1]);
                } else {
                    messages.add((row[0].isEmpty() ? "" : row[0] + ": ") + row[1]);
                }
                continuing = true;
                continue;
            } else if (!messageRow) {
                // a metadata row (DCGM Version, Driver Version) or a section header ends the previous test
                if (name != null) {
                    tests.add(new DiagTest(name, verdict, messages));
                }
                name = null;
                messages = new ArrayList<>();
            }
            continuing = false;
        }
        if (name != null) {
            tests.add(new DiagTest(name, verdict, messages));
        }
        return tests;
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
