package org.slurmautoresume.bridge.rules;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rule's regular expression as it is applied to a line: anchored at the start of the line and
 * free at its end (Python's {@code re.match}, which HyperPod's patterns assume: they begin with
 * {@code .*}), with {@code .} matching any character (a line never holds its terminator).
 * Not thread-safe: it reuses one matcher; the monitor calls it under its lock.
 */
final class RulePattern {

    private final Pattern pattern;
    private final RequiredLiteral literal;
    private final Matcher matcher;

    RulePattern(String regex) {
        this.pattern = Pattern.compile(regex, Pattern.DOTALL);
        this.literal = RequiredLiteral.of(regex);
        this.matcher = pattern.matcher("");
    }

    /** Whether the line matches; the cheap literal test answers alone when it can. */
    boolean matches(String line) {
        if (!literal.mayMatch(line)) {
            return false;
        }
        return literal.exact() || matcher.reset(line).lookingAt();
    }

    /** The matcher positioned on the match (for its groups), or null when the line does not match. */
    Matcher match(String line) {
        if (!literal.mayMatch(line)) {
            return null;
        }
        return matcher.reset(line).lookingAt() ? matcher : null;
    }

    @Override
    public String toString() {
        return pattern.pattern();
    }
}
