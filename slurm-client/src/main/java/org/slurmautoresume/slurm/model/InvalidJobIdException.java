package org.slurmautoresume.slurm.model;

/** Text that is not a job or step id in Slurm's syntax; the message quotes it, made safe to print. */
public final class InvalidJobIdException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** Enough of a hostile input to recognise it, never the whole of a 10 kB one. */
    private static final int QUOTED_CHARS = 40;

    InvalidJobIdException(String what, String input, String why) {
        super("not a valid " + what + ": " + quote(input) + " (" + why + ")");
    }

    /** {@code "text"} with control characters escaped and long input cut, so a log line stays one line. */
    static String quote(String input) {
        if (input == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder("\"");
        int shown = Math.min(input.length(), QUOTED_CHARS);
        for (int i = 0; i < shown; i++) {
            char c = input.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                out.append(String.format("\\x%02x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
        if (input.length() > shown) {
            out.append("... (").append(input.length()).append(" characters)");
        }
        return out.toString();
    }
}
