package org.slurmautoresume.nodeops.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slurmautoresume.nodeops.lemon.LemonRule;

class SweepPolicyLoaderTest {

    @TempDir
    Path dir;

    @Test
    void yamlSetsFieldsAndLeavesTheRestAtTheirDefaults() throws Exception {
        Path file = dir.resolve("policy.yaml");
        Files.writeString(file, """
                # hand-written
                escalateFailAfterSeconds: 600
                notRespondingAction: report
                maxNodes: 3
                excludeNodes: login[1-2]
                healthCommand: [ssh, "{node}", autoresume, health]
                """);
        SweepPolicy policy = SweepPolicyLoader.load(file);
        assertEquals(Duration.ofSeconds(600), policy.escalateFailAfter());
        assertFalse(policy.markNotResponding());
        assertEquals(3, policy.maxNodes());
        assertEquals("login[1-2]", policy.excludeNodes());
        assertEquals(List.of("ssh", "{node}", "autoresume", "health"), policy.healthCommand());
        assertEquals(SweepPolicy.DEFAULTS.maxPartitionPercent(), policy.maxPartitionPercent());
        assertEquals(SweepPolicy.DEFAULTS.donorMaxAge(), policy.donorMaxAge());
    }

    @Test
    void theLemonRuleIsThreeMarksInSevenDaysUnlessTheSiteSaysOtherwise() throws Exception {
        assertEquals(new LemonRule(3, Duration.ofDays(7)), SweepPolicy.DEFAULTS.lemon());
        Path file = dir.resolve("lemon.yaml");
        Files.writeString(file, "lemonMarks: 2\nlemonWindowSeconds: 3600\n");
        assertEquals(
                new LemonRule(2, Duration.ofHours(1)),
                SweepPolicyLoader.load(file).lemon());
        Files.writeString(file, "lemonMarks: 0\n");
        assertFalse(SweepPolicyLoader.load(file).lemon().enabled());
    }

    @Test
    void jsonToo() throws Exception {
        Path file = dir.resolve("policy.json");
        Files.writeString(file, "{\"donorMaxAgeSeconds\": 120, \"resumeReturnedNodes\": false}");
        SweepPolicy policy = SweepPolicyLoader.load(file);
        assertEquals(Duration.ofSeconds(120), policy.donorMaxAge());
        assertFalse(policy.resumeReturned());
    }

    @Test
    void anEmptyFileIsTheDefaults() throws Exception {
        Path file = dir.resolve("empty.yaml");
        Files.writeString(file, "");
        assertEquals(SweepPolicy.DEFAULTS, SweepPolicyLoader.load(file));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "maxNods: 3|maxNods: unknown field; known here: completingAfterSeconds, donorMaxAgeSeconds",
                "maxNodes: ten|maxNodes: expected a whole number, found text \"ten\"",
                "maxPartitionPercent: 150|maxPartitionPercent: must be at most 100, found 150",
                "donorMaxAgeSeconds: -1|donorMaxAgeSeconds: must not be negative, found -1",
                "donorMaxAgeSeconds: 2592001|donorMaxAgeSeconds: must be at most 2592000, found 2592001",
                "donorMaxAgeSeconds: 1.5|donorMaxAgeSeconds: expected a whole number, found number 1.5",
                "notRespondingAction: kill|notRespondingAction: must be one of replace, report, found text \"kill\"",
                "resumeReturnedNodes: yes please|resumeReturnedNodes: must be true or false, found text \"yes please\"",
                "healthCommand: ssh {node} check|healthCommand: expected a non-empty list of words (program first), not a shell string",
                "healthCommand: []|healthCommand: is empty",
                "healthCommand: [ssh, '']|healthCommand[1]: is empty",
                "excludeNodes: 'n[5-1]'|excludeNodes: ",
                "[1, 2]|expected a mapping of fields, found a list",
                "lemonMarks: -1|lemonMarks: must not be negative, found -1",
                "lemonWindowSeconds: 30|lemonWindowSeconds: must be at least 60, found 30",
                "maxNodes: [1|not valid YAML at line "
            })
    void aBadFieldIsNamedWithTheFileAndWhy(String yaml, String expected) throws Exception {
        Path file = dir.resolve("bad.yml");
        Files.writeString(file, yaml + "\n");
        SweepPolicyException e = assertThrows(SweepPolicyException.class, () -> SweepPolicyLoader.load(file));
        assertEquals(
                file + ": " + expected,
                e.getMessage()
                        .substring(
                                0,
                                Math.min(
                                        e.getMessage().length(), file.toString().length() + 2 + expected.length())),
                e.getMessage());
    }

    @Test
    void everyErrorOfTheFileIsReportedAtOnce() throws Exception {
        Path file = dir.resolve("bad.json");
        Files.writeString(file, "{\"maxNodes\": -1, \"maxNods\": 3, \"healthTimeoutSeconds\": \"2m\"}");
        SweepPolicyException e = assertThrows(SweepPolicyException.class, () -> SweepPolicyLoader.load(file));
        assertEquals(
                List.of("maxNodes", "healthTimeoutSeconds", "maxNods"),
                e.problems().stream().map(p -> p.path()).toList());
        assertEquals(3, e.getMessage().lines().count(), e.getMessage());
    }

    @Test
    void aValueWithANewlineCannotForgeALine() throws Exception {
        Path file = dir.resolve("bad.json");
        Files.writeString(file, "{\"notRespondingAction\": \"x\\nall good\"}");
        SweepPolicyException e = assertThrows(SweepPolicyException.class, () -> SweepPolicyLoader.load(file));
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        assertTrue(e.getMessage().endsWith("found text \"x\\nall good\""), e.getMessage());
    }

    @Test
    void aMissingFileSaysSo() {
        Path file = dir.resolve("nope.json");
        SweepPolicyException e = assertThrows(SweepPolicyException.class, () -> SweepPolicyLoader.load(file));
        assertEquals(file + ": the file does not exist", e.getMessage());
    }

    @Test
    void theShippedExampleLoads() {
        Path example = Path.of(System.getProperty("user.dir")).resolveSibling("examples/sweep-policy.yaml");
        SweepPolicy policy = SweepPolicyLoader.load(example);
        assertTrue(policy.maxNodes() > 0);
    }
}
