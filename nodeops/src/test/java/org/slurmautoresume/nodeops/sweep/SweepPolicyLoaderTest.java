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
    @CsvSource(delimiter = '|', value = {
        "maxNods: 3|field 'maxNods': unknown field",
        "maxNodes: ten|field 'maxNodes': must be a whole number from 0 to 100000, got \"ten\"",
        "maxPartitionPercent: 150|field 'maxPartitionPercent': must be a whole number from 0 to 100, got 150",
        "donorMaxAgeSeconds: -1|field 'donorMaxAgeSeconds': must be between 0 and",
        "donorMaxAgeSeconds: 1.5|field 'donorMaxAgeSeconds': must be a whole number of seconds",
        "notRespondingAction: kill|field 'notRespondingAction': must be one of replace, report",
        "resumeReturnedNodes: yes please|field 'resumeReturnedNodes': must be true or false",
        "healthCommand: ssh {node} check|field 'healthCommand': must be a non-empty list of words",
        "excludeNodes: 'n[5-1]'|field 'excludeNodes':",
        "maxNodes: [1|not valid YAML"})
    void aBadFieldIsNamedWithTheFileAndWhy(String yaml, String expected) throws Exception {
        Path file = dir.resolve("bad.yml");
        Files.writeString(file, yaml + "\n");
        SweepPolicyException e = assertThrows(SweepPolicyException.class, () -> SweepPolicyLoader.load(file));
        assertTrue(e.getMessage().startsWith(file.toString() + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void aMissingFileSaysSo() {
        Path file = dir.resolve("nope.json");
        SweepPolicyException e = assertThrows(SweepPolicyException.class, () -> SweepPolicyLoader.load(file));
        assertTrue(e.getMessage().contains("nope.json: cannot read"), e.getMessage());
    }

    @Test
    void theShippedExampleLoads() {
        Path example = Path.of(System.getProperty("user.dir")).resolveSibling("examples/sweep-policy.yaml");
        SweepPolicy policy = SweepPolicyLoader.load(example);
        assertTrue(policy.maxNodes() > 0);
    }
}
