package org.slurmautoresume.supervisor.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RequiredLiteralTest {

    static Stream<Arguments> patterns() {
        return Stream.of(
                Arguments.of(".*Experiment configuration.*", "Experiment configuration", true),
                Arguments.of(".*Train Epoch", "Train Epoch", true),
                Arguments.of(
                        ".*The checkpoint is finalized. All shards is written.*", "The checkpoint is finalized", false),
                Arguments.of(
                        ".*The checkpoint is finalized\\. All shards is written\\..*",
                        "The checkpoint is finalized. All shards is written.",
                        true),
                Arguments.of(
                        ".*\\[Epoch 0 Batch \\d+.*'training_loss_step': (\\d+(\\.\\d+)?).*",
                        "'training_loss_step': ",
                        false),
                Arguments.of(".*training_loss_step (\\d+(?:\\.\\d+)?).*", "training_loss_step ", false),
                Arguments.of(".* (.+)TFLOPs.*", "TFLOPs", false),
                Arguments.of("Train Epoch", "Train Epoch", false),
                Arguments.of("colou?r", "colo", false),
                Arguments.of("ab{2}cde", "cde", false),
                Arguments.of("(?i).*error.*", "", false),
                Arguments.of(".*(warn|error).*", "", false),
                Arguments.of("warn|error", "", false),
                Arguments.of(".*\\Qa.b\\E.*", "", false),
                Arguments.of(".*[abc]xyz[^]].*", "", false));
    }

    @ParameterizedTest
    @MethodSource("patterns")
    void findsTheLongestRequiredText(String regex, String text, boolean exact) {
        RequiredLiteral literal = RequiredLiteral.of(regex);
        assertEquals(text, literal.text());
        assertEquals(exact, literal.exact());
    }

    /**
     * The literal is only a shortcut: for every pattern and line, the shortcut must never reject
     * a line the regex accepts, and an exact literal must agree with the regex both ways.
     */
    @Test
    void neverDisagreesWithTheRegexEngine() {
        List<String> patterns = List.of(
                ".*ab.*",
                ".*a\\.b",
                "ab+c",
                ".*a(b|c)d.*",
                "a?bc",
                ".*[ab]c.*",
                ".*x\\d+y.*",
                "xy*z",
                ".*(?:ab)?cd",
                ".*a\\*b.*",
                ".*\\[ab\\].*",
                "(a)b(c)",
                ".*ab{1,2}c.*",
                ".*a.c.*",
                "^ab",
                ".*ab$",
                ".*a\\sb.*",
                ".* (.+)TFLOPs.*",
                ".*a\\|b.*",
                "[a-c]+b");
        Random random = new Random(5);
        String alphabet = "abcdxyz.*[]| 0123TFLOPs\u2028";
        for (String regex : patterns) {
            Pattern compiled = Pattern.compile(regex, Pattern.DOTALL);
            RequiredLiteral literal = RequiredLiteral.of(regex);
            for (int i = 0; i < 20_000; i++) {
                String text = RandomLines.next(random, alphabet, 12);
                boolean matches = compiled.matcher(text).lookingAt();
                assertTrue(!matches || literal.mayMatch(text), regex + " on \"" + text + "\"");
                if (literal.exact()) {
                    assertEquals(matches, literal.mayMatch(text), regex + " (exact) on \"" + text + "\"");
                }
            }
        }
    }
}
