package org.slurmautoresume.slurm.exec;

import java.time.Duration;

/** What a finished (or timed-out) command left behind. */
public record CommandResult(
        CommandRequest request, int exitCode, String stdout, String stderr, boolean timedOut, Duration elapsed) {

    public boolean succeeded() {
        return !timedOut && exitCode == 0;
    }

    /** The last lines of stderr (or stdout when stderr is empty), for error messages. */
    public String diagnosticTail() {
        String text = stderr.isBlank() ? stdout : stderr;
        return tail(text, 5, 800);
    }

    static String tail(String text, int maxLines, int maxChars) {
        String trimmed = text.strip();
        String[] lines = trimmed.split("\n");
        int from = Math.max(0, lines.length - maxLines);
        String joined = String.join("\n", java.util.Arrays.copyOfRange(lines, from, lines.length));
        if (joined.length() > maxChars) {
            joined = "..." + joined.substring(joined.length() - maxChars);
        }
        return joined;
    }
}
