package org.slurmautoresume.slurm.hostlist;

/**
 * A hostlist expression or host name that {@link Hostlist} refuses, or an expansion that would
 * pass the caller's cap.
 *
 * <p>The message quotes the offending input (shortened around the problem when it is long), says
 * where the problem is and why, so that it can be shown to a user as is.
 */
public final class HostlistException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** Inputs longer than this are quoted as an excerpt around {@link #position()}. */
    private static final int MAX_QUOTED = 120;

    private final String input;
    private final int position;
    private final String reason;

    /**
     * @param what     what the input is, e.g. "hostlist" or "host name"
     * @param input    the offending text
     * @param position the index in {@code input} of the problem, or -1 when it concerns the whole
     * @param reason   why the input is refused, in words a user can act on
     */
    HostlistException(String what, String input, int position, String reason) {
        super(describe(what, input, position, reason));
        this.input = input;
        this.position = position;
        this.reason = reason;
    }

    /** The text that was refused. */
    public String input() {
        return input;
    }

    /** The index in {@link #input()} where the problem is, or -1 when it concerns the whole input. */
    public int position() {
        return position;
    }

    /** Why the input was refused, without the quoted input. */
    public String reason() {
        return reason;
    }

    private static String describe(String what, String input, int position, String reason) {
        StringBuilder sb = new StringBuilder(64 + Math.min(input.length(), MAX_QUOTED));
        sb.append("invalid ")
                .append(what)
                .append(" \"")
                .append(excerpt(input, position))
                .append('"');
        if (position >= 0) {
            sb.append(" at position ").append(position);
        }
        return sb.append(": ").append(reason).toString();
    }

    private static String excerpt(String input, int position) {
        String shown = input;
        if (input.length() > MAX_QUOTED) {
            int centre = position >= 0 ? position : 0;
            int from = Math.max(0, Math.min(centre - MAX_QUOTED / 2, input.length() - MAX_QUOTED));
            int to = from + MAX_QUOTED;
            shown = (from > 0 ? "..." : "") + input.substring(from, to) + (to < input.length() ? "..." : "");
        }
        // Control characters would garble a terminal or a log line; show them escaped.
        StringBuilder sb = new StringBuilder(shown.length());
        for (int i = 0; i < shown.length(); i++) {
            char c = shown.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
