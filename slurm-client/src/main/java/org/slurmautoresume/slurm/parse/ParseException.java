package org.slurmautoresume.slurm.parse;

/** Slurm output that does not have the expected shape; the message quotes the input. */
public class ParseException extends RuntimeException {

    private static final long serialVersionUID = 1L;
    private static final int QUOTE_LIMIT = 200;

    public ParseException(String what, String input) {
        super(what + ": \"" + abbreviate(input) + "\"");
    }

    static String abbreviate(String input) {
        if (input == null) {
            return "(nothing)";
        }
        String oneLine = input.replace("\n", "\\n");
        return oneLine.length() <= QUOTE_LIMIT ? oneLine : oneLine.substring(0, QUOTE_LIMIT) + "...";
    }
}
