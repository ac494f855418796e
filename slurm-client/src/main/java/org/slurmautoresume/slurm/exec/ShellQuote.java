package org.slurmautoresume.slurm.exec;

/**
 * POSIX shell single-quoting. Used to print values that a user's script will
 * {@code eval}, and to display commands in messages; the toolkit itself never runs a shell.
 */
public final class ShellQuote {

    private ShellQuote() {}

    /** Always quotes: the result is safe as one word in sh, bash, dash and zsh. */
    public static String quote(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2);
        out.append('\'');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\'') {
                out.append("'\\''");
            } else {
                out.append(c);
            }
        }
        return out.append('\'').toString();
    }

    /** Quotes only when the word holds characters a shell would treat specially. */
    public static String quoteIfNeeded(String value) {
        if (value.isEmpty()) {
            return "''";
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean plain = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '_'
                    || c == '.'
                    || c == '/'
                    || c == ':'
                    || c == '='
                    || c == ','
                    || c == '@'
                    || c == '+'
                    || c == '%';
            if (!plain) {
                return quote(value);
            }
        }
        return value;
    }
}
