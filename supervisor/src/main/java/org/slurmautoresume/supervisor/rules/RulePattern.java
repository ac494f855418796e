package org.slurmautoresume.supervisor.rules;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rule's regular expression as it is applied to a line: anchored at the start of the line and
 * free at its end (Python's {@code re.match}, which HyperPod's patterns assume: they begin with
 * {@code .*}), with {@code .} matching any character (a line never holds its terminator).
 * Not thread-safe: it reuses its matchers; the monitor calls it under its lock.
 *
 * <p>Two rewrites keep the answer, groups included, while sparing the backtracking engine most
 * of its walk: a trailing {@code .*} is dropped (it always matches), and {@code .*TEXT...} is
 * tried only where TEXT occurs, last occurrence first, which is the order in which the greedy
 * {@code .*} would have found them. A property test holds both to the plain engine's answers.
 */
final class RulePattern {

    private final String regex;
    private final RequiredLiteral literal;
    private final Matcher whole;
    /** For {@code .*TEXT...}: TEXT and a matcher of the rest, else null. */
    private final String anchor;

    private final Matcher rest;

    RulePattern(String regex) {
        this.regex = regex;
        this.literal = RequiredLiteral.of(regex);
        String body = withoutTrailingDotStar(regex);
        this.whole = Pattern.compile(body, Pattern.DOTALL).matcher("");
        String restRegex = body.startsWith(".*") ? body.substring(2) : null;
        String lead = restRegex == null || !safeToSearch(restRegex) ? "" : leadingLiteral(restRegex);
        if (lead.isEmpty()) {
            this.anchor = null;
            this.rest = null;
        } else {
            this.anchor = lead;
            this.rest = Pattern.compile(restRegex, Pattern.DOTALL)
                    .matcher("")
                    .useTransparentBounds(true)
                    .useAnchoringBounds(false);
        }
    }

    /** Whether the line matches; the cheap literal test answers alone when it can. */
    boolean matches(String line) {
        if (!literal.mayMatch(line)) {
            return false;
        }
        return literal.exact() || match(line) != null;
    }

    /** The matcher positioned on the match (for its groups), or null when the line does not match. */
    Matcher match(String line) {
        if (!literal.mayMatch(line)) {
            return null;
        }
        if (anchor == null) {
            return whole.reset(line).lookingAt() ? whole : null;
        }
        rest.reset(line);
        for (int at = line.lastIndexOf(anchor); at >= 0; at = at == 0 ? -1 : line.lastIndexOf(anchor, at - 1)) {
            rest.region(at, line.length());
            if (rest.lookingAt()) {
                return rest;
            }
        }
        return null;
    }

    static String withoutTrailingDotStar(String regex) {
        if (!regex.endsWith(".*") || regex.contains("\\Q")) {
            return regex;
        }
        int backslashes = 0;
        for (int i = regex.length() - 3; i >= 0 && regex.charAt(i) == '\\'; i--) {
            backslashes++;
        }
        return backslashes % 2 == 0 ? regex.substring(0, regex.length() - 2) : regex;
    }

    /** No alternation, inline flags, quoting or \G, which would make searching differ from the greedy walk. */
    private static boolean safeToSearch(String rest) {
        return !rest.startsWith("?")
                && !rest.startsWith("+")
                && !rest.contains("|")
                && !rest.contains("(?")
                && !rest.contains("\\Q")
                && !rest.contains("\\G");
    }

    /** The plain text a match of {@code rest} must begin with ("" if none). */
    static String leadingLiteral(String rest) {
        StringBuilder text = new StringBuilder();
        int i = 0;
        while (i < rest.length()) {
            char c = rest.charAt(i);
            if (c == '\\' && i + 1 < rest.length() && !Character.isLetterOrDigit(rest.charAt(i + 1))) {
                text.append(rest.charAt(i + 1));
                i += 2;
            } else if (c != '\\' && "^$.|?*+()[]{}".indexOf(c) < 0) {
                text.append(c);
                i++;
            } else {
                break;
            }
        }
        if (i < rest.length() && "*+?{".indexOf(rest.charAt(i)) >= 0 && text.length() > 0) {
            text.setLength(text.length() - 1); // that last character is quantified: it may be absent
        }
        return text.toString();
    }

    @Override
    public String toString() {
        return regex;
    }
}
