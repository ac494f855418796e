package org.slurmautoresume.supervisor.rules;

/**
 * A piece of plain text that every match of a regular expression must contain, found by a
 * deliberately timid reading of the pattern: most lines of a training log match none of the
 * rules, and {@code String.contains} rejects them far faster than the regex engine would.
 *
 * <p>Only literal characters at the top level count (never inside a group, a class or before a
 * quantifier); a top-level {@code |}, inline flags, {@code \Q} or an escape this reader does not
 * know give no literal at all, which is always safe. {@link #exact()} is true for patterns of
 * the form {@code .*TEXT} or {@code .*TEXT.*}, where containing TEXT is the whole test.
 */
record RequiredLiteral(String text, boolean exact) {

    static final RequiredLiteral NONE = new RequiredLiteral("", false);

    private static final String META = "\\^$.|?*+()[]{}";
    private static final String ONE_CHAR_CLASSES = "dDwWsSbBhHvVRAzZGX";

    boolean mayMatch(String line) {
        return text.isEmpty() || line.contains(text);
    }

    static RequiredLiteral of(String regex) {
        String best = "";
        StringBuilder run = new StringBuilder();
        boolean lastWasLiteral = false;
        int i = 0;
        int n = regex.length();
        while (i < n) {
            char c = regex.charAt(i);
            if (c == '\\') {
                if (i + 1 >= n) {
                    return NONE;
                }
                char e = regex.charAt(i + 1);
                i += 2;
                if (Character.isLetterOrDigit(e)) {
                    if (ONE_CHAR_CLASSES.indexOf(e) < 0) {
                        return NONE; // \Q, \x41, \p{L}, \k<name>, \1 ...: not worth reading
                    }
                    best = longer(best, run);
                    lastWasLiteral = false;
                } else {
                    run.append(e);
                    lastWasLiteral = true;
                }
                continue;
            }
            switch (c) {
                case '|':
                    return NONE;
                case '(':
                    if (i + 2 < n
                            && regex.charAt(i + 1) == '?'
                            && (Character.isLetter(regex.charAt(i + 2)) || regex.charAt(i + 2) == '-')) {
                        return NONE; // inline flags such as (?i) change how literals match
                    }
                    best = longer(best, run);
                    i = skipGroup(regex, i);
                    if (i < 0) {
                        return NONE;
                    }
                    lastWasLiteral = false;
                    continue;
                case '[':
                    best = longer(best, run);
                    i = skipClass(regex, i);
                    if (i < 0) {
                        return NONE;
                    }
                    lastWasLiteral = false;
                    continue;
                case '*':
                case '+':
                case '?':
                case '{':
                    if (lastWasLiteral) {
                        run.setLength(run.length() - 1); // that character may be absent or repeated
                    }
                    best = longer(best, run);
                    lastWasLiteral = false;
                    if (c == '{') {
                        int close = regex.indexOf('}', i);
                        if (close < 0) {
                            return NONE;
                        }
                        i = close + 1;
                    } else {
                        i++;
                    }
                    continue;
                default:
                    if (META.indexOf(c) >= 0) { // . ^ $ ) ] }
                        best = longer(best, run);
                        lastWasLiteral = false;
                    } else {
                        run.append(c);
                        lastWasLiteral = true;
                    }
                    i++;
            }
        }
        best = longer(best, run);
        return new RequiredLiteral(best, !best.isEmpty() && isDotStarLiteral(regex, best));
    }

    private static String longer(String best, StringBuilder run) {
        String candidate = run.toString();
        run.setLength(0);
        return candidate.length() > best.length() ? candidate : best;
    }

    /** {@code .*} + the literal (as written, escapes allowed) + optional {@code .*}, nothing else. */
    private static boolean isDotStarLiteral(String regex, String literal) {
        if (!regex.startsWith(".*") || regex.startsWith(".*?") || regex.startsWith(".*+")) {
            return false;
        }
        String body = regex.substring(2);
        if (body.endsWith(".*") && !body.endsWith("\\.*")) {
            body = body.substring(0, body.length() - 2);
        }
        StringBuilder plain = new StringBuilder();
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '\\') {
                if (i + 1 >= body.length() || Character.isLetterOrDigit(body.charAt(i + 1))) {
                    return false;
                }
                plain.append(body.charAt(++i));
            } else if (META.indexOf(c) >= 0) {
                return false;
            } else {
                plain.append(c);
            }
        }
        return plain.toString().equals(literal);
    }

    /** Index just after the group opened at {@code open}, or -1 when the pattern is beyond this reader. */
    private static int skipGroup(String regex, int open) {
        int depth = 0;
        int i = open;
        while (i < regex.length()) {
            char c = regex.charAt(i);
            if (c == '\\') {
                i = afterEscape(regex, i);
                if (i < 0) {
                    return -1;
                }
            } else if (c == '[') {
                i = skipClass(regex, i);
                if (i < 0) {
                    return -1;
                }
            } else {
                if (c == '(') {
                    depth++;
                } else if (c == ')' && --depth == 0) {
                    return i + 1;
                }
                i++;
            }
        }
        return -1;
    }

    private static int skipClass(String regex, int open) {
        int i = open + 1;
        if (i < regex.length() && regex.charAt(i) == '^') {
            i++;
        }
        if (i < regex.length() && regex.charAt(i) == ']') {
            return -1; // a leading ']' is read differently by different engines: do not guess
        }
        int depth = 1;
        while (i < regex.length()) {
            char c = regex.charAt(i);
            if (c == '\\') {
                i = afterEscape(regex, i);
                if (i < 0) {
                    return -1;
                }
                continue;
            }
            if (c == '[') {
                depth++;
            } else if (c == ']' && --depth == 0) {
                return i + 1;
            }
            i++;
        }
        return -1;
    }

    /** Index after the escape at {@code i}; -1 for {@code \\Q}, whose quoted text this reader does not follow. */
    private static int afterEscape(String regex, int i) {
        return i + 1 < regex.length() && regex.charAt(i + 1) == 'Q' ? -1 : i + 2;
    }
}
