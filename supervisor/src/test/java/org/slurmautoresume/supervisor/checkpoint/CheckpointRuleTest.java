package org.slurmautoresume.supervisor.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CheckpointRuleTest {

    private static CheckpointRule rule(Optional<String> directory, Optional<String> marker) {
        return new CheckpointRule(directory, marker, OptionalLong.empty(), OptionalLong.of(60));
    }

    private static Duration interval(long startCutOff, long recurring) {
        return new CheckpointRule(
                        Optional.empty(),
                        Optional.empty(),
                        startCutOff > 0 ? OptionalLong.of(startCutOff) : OptionalLong.empty(),
                        recurring > 0 ? OptionalLong.of(recurring) : OptionalLong.empty())
                .scanInterval();
    }

    @Test
    void scansComeAtAQuarterOfTheShortestLimitBetweenOneAndFiveSeconds() {
        assertEquals(Duration.ofSeconds(1), interval(0, 3));
        assertEquals(Duration.ofMillis(2500), interval(600, 10));
        assertEquals(Duration.ofMillis(2500), interval(10, 600));
        assertEquals(Duration.ofSeconds(5), interval(1800, 1800));
        assertEquals(Duration.ofSeconds(5), interval(0, 0));
    }

    @Test
    void theEnvironmentsVariablesBeatTheRulesDirectoryAndMarkerWhichFillIn() {
        Map<String, String> env = Map.of(
                CheckpointLocator.DIR, "/scratch/env-ckpt", CheckpointLocator.MARKER, "COMPLETE", "PWD", "/home/u/run");
        CheckpointLocator fromEnv =
                rule(Optional.empty(), Optional.empty()).locator(env).orElseThrow();
        assertEquals(Path.of("/scratch/env-ckpt"), fromEnv.dir());
        assertEquals("COMPLETE", fromEnv.marker());
        CheckpointLocator bothSet =
                rule(Optional.of("ckpt"), Optional.of("done")).locator(env).orElseThrow();
        assertEquals(Path.of("/scratch/env-ckpt"), bothSet.dir(), "a variable that is set beats the files");
        assertEquals("COMPLETE", bothSet.marker());
        CheckpointLocator fromRule = rule(Optional.of("ckpt"), Optional.of("done"))
                .locator(Map.of("PWD", "/home/u/run"))
                .orElseThrow();
        assertEquals(Path.of("/home/u/run/ckpt"), fromRule.dir(), "relative to the step's working directory");
        assertEquals("done", fromRule.marker());
        assertEquals(
                CheckpointLocator.DEFAULT_MARKER,
                rule(Optional.of("/c"), Optional.empty())
                        .locator(Map.of())
                        .orElseThrow()
                        .marker());
    }

    @Test
    void noDirectoryAnywhereIsNoLocator() {
        assertTrue(rule(Optional.empty(), Optional.empty())
                .locator(Map.of("PWD", "/x"))
                .isEmpty());
        assertTrue(CheckpointRule.NO_DIRECTORY.contains(CheckpointLocator.DIR), CheckpointRule.NO_DIRECTORY);
    }

    @Test
    void aMarkerMustBeAFileName() {
        assertThrows(IllegalArgumentException.class, () -> rule(Optional.empty(), Optional.of("a/b")));
        assertThrows(
                IllegalArgumentException.class,
                () -> new CheckpointRule(Optional.empty(), Optional.empty(), OptionalLong.of(0), OptionalLong.empty()));
    }
}
