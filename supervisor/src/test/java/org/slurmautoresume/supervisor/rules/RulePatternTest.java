package org.slurmautoresume.supervisor.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class RulePatternTest {

    @Test
    void readsTheTextAMatchBeginsWith() {
        assertEquals("[Epoch ", RulePattern.leadingLiteral("\\[Epoch \\d+ Batch"));
        assertEquals("'training_loss_step': ", RulePattern.leadingLiteral("'training_loss_step': (\\d+)"));
        assertEquals("colo", RulePattern.leadingLiteral("colou?r"));
        assertEquals("", RulePattern.leadingLiteral("(.+)TFLOPs"));
        assertEquals("", RulePattern.leadingLiteral("\\d+ ms"));
    }

    @Test
    void dropsOnlyARealTrailingDotStar() {
        assertEquals(".*loss", RulePattern.withoutTrailingDotStar(".*loss.*"));
        assertEquals(".*a\\.*", RulePattern.withoutTrailingDotStar(".*a\\.*"));
        assertEquals(".*a\\\\", RulePattern.withoutTrailingDotStar(".*a\\\\.*"));
    }

    /**
     * The rewrites are only shortcuts: on random lines, matching and capture group 1 must be
     * exactly what the plain engine says for the pattern as written, anchored at the start.
     */
    @Test
    void agreesWithThePlainEngineOnMatchesAndGroups() {
        List<String> patterns = List.of(
                ".*ab(\\d+).*",
                ".*ab(\\d+)",
                ".*a(b+)c.*",
                ".*x (.+)y.*",
                ".*a.*b(\\d*).*",
                ".*ab.*",
                ".*a\\.b(.).*",
                ".*ab?(c).*",
                ".*(ab)",
                ".*a(?:b|c)(d).*",
                ".*ab|cd(\\d)",
                "ab(\\d).*",
                ".*\\[a \\d+\\].*'b': (\\d+(\\.\\d+)?).*",
                ".*a\\.*",
                ".*ab(?=c)(.).*",
                ".*(?<=x)ab(\\d)");
        Random random = new Random(17);
        String alphabet = "ab0123 .xyc'[]:d";
        for (String regex : patterns) {
            Pattern plain = Pattern.compile(regex, Pattern.DOTALL);
            RulePattern fast = new RulePattern(regex);
            boolean grouped = plain.matcher("").groupCount() >= 1;
            for (int i = 0; i < 20_000; i++) {
                String text = RandomLines.next(random, alphabet, 16);
                Matcher expected = plain.matcher(text);
                boolean matches = expected.lookingAt();
                Matcher actual = fast.match(text);
                assertEquals(matches, actual != null, regex + " on \"" + text + "\"");
                assertEquals(matches, fast.matches(text), regex + " on \"" + text + "\"");
                if (matches && grouped) {
                    assertEquals(expected.group(1), actual.group(1), regex + " group 1 on \"" + text + "\"");
                }
            }
        }
    }
}
