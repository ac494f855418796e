package org.slurmautoresume.supervisor.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.configfile.ConfigProblem;
import org.slurmautoresume.supervisor.checkpoint.CheckpointRule;

/** {@code runPolicy.checkpointMonitoring}: read, checked, merged and shown like the log rules. */
class CheckpointConfigTest {

    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void aCompleteSectionBecomesTheRuleAndIsShownAsWritten() {
        ConfigResult result = ConfigLoader.checkText("job.yaml", """
                runPolicy:
                  checkpointMonitoring:
                    directory: /scratch/run/ckpt
                    marker: COMPLETE
                    expectedStartCutOffInSeconds: 1800
                    expectedRecurringFrequencyInSeconds: 900
                """);
        assertTrue(result.ok(), result.problems().toString());
        assertTrue(result.problems().isEmpty(), result.problems().toString());
        AutoresumeConfig config = result.orThrow();
        assertEquals(
                Optional.of(new CheckpointRule(
                        Optional.of("/scratch/run/ckpt"),
                        Optional.of("COMPLETE"),
                        OptionalLong.of(1800),
                        OptionalLong.of(900))),
                config.checkpointMonitoring());
        assertTrue(ConfigRenderer.yaml(config).endsWith("""
                  checkpointMonitoring:
                    directory: /scratch/run/ckpt
                    marker: COMPLETE
                    expectedStartCutOffInSeconds: 1800
                    expectedRecurringFrequencyInSeconds: 900
                """), ConfigRenderer.yaml(config));
    }

    @Test
    void whatTheEnvironmentDecidesIsLeftOutOfTheShownConfiguration() {
        AutoresumeConfig config = ConfigLoader.checkText(
                        "job.yaml", "runPolicy:\n  checkpointMonitoring: {expectedRecurringFrequencyInSeconds: 60}\n")
                .orThrow();
        String shown = ConfigRenderer.yaml(config);
        assertTrue(shown.contains("checkpointMonitoring:\n    expectedRecurringFrequencyInSeconds: 60\n"), shown);
        assertFalse(shown.contains("directory"), shown);
        assertFalse(shown.contains("marker"), shown);
        assertTrue(ConfigLoader.checkText("shown.yaml", shown).ok(), "the output is itself a valid file");
        assertTrue(ConfigLoader.checkText("none.yaml", "runPolicy: {}\n")
                .orThrow()
                .checkpointMonitoring()
                .isEmpty());
    }

    @Test
    void everyBadFieldIsNamedWithItsPath() {
        ConfigResult result = ConfigLoader.checkText("job.yaml", """
                runPolicy:
                  checkpointMonitoring:
                    directory: "  "
                    marker: "step/.metadata"
                    expectedStartCutOffInSeconds: 0
                    expectedRecurringFrequencyInSeconds: "15m"
                    logPattern: ".*saved.*"
                """);
        assertFalse(result.ok());
        Map<String, String> errors = ConfigErrorsTest.errorsByPath(result);
        assertEquals(
                "must not be empty; leave it out to use AUTORESUME_CHECKPOINT_DIR of the step's environment",
                errors.get("runPolicy.checkpointMonitoring.directory"));
        assertEquals(
                "must be a file name, not a path: \"step/.metadata\"",
                errors.get("runPolicy.checkpointMonitoring.marker"));
        assertEquals(
                "must be at least 1, found 0",
                errors.get("runPolicy.checkpointMonitoring.expectedStartCutOffInSeconds"));
        assertEquals(
                "expected a whole number, found text \"15m\"",
                errors.get("runPolicy.checkpointMonitoring.expectedRecurringFrequencyInSeconds"));
        assertEquals(
                "unknown field; known here: directory, expectedRecurringFrequencyInSeconds,"
                        + " expectedStartCutOffInSeconds, marker",
                errors.get("runPolicy.checkpointMonitoring.logPattern"));
        assertEquals(5, result.errors().size(), result.errors().toString());
        assertTrue(
                result.errors().get(0).toString().startsWith("job.yaml: runPolicy.checkpointMonitoring."),
                result.errors().toString());
    }

    @Test
    void aListWhereTheSectionShouldBeIsAnError() {
        Map<String, String> errors = ConfigErrorsTest.errorsByPath(ConfigLoader.checkText(
                "j.json", "{\"runPolicy\": {\"checkpointMonitoring\": [{\"directory\": \"/c\"}]}}"));
        assertEquals("expected a mapping of fields, found a list", errors.get("runPolicy.checkpointMonitoring"));
    }

    @Test
    void withoutALimitTheRuleLoadsWithAWarning() {
        ConfigResult result =
                ConfigLoader.checkText("w.yaml", "runPolicy:\n  checkpointMonitoring: {directory: ckpt}\n");
        assertTrue(result.ok(), result.problems().toString());
        assertEquals(
                List.of("runPolicy.checkpointMonitoring"),
                result.warnings().stream().map(ConfigProblem::path).toList());
        assertTrue(result.warnings().get(0).message().startsWith("this rule can never be violated"));
    }

    @Test
    void theJobsFileRefinesTheSitesFieldByFieldAndNullClearsIt() throws IOException {
        Path site = write("site.yaml", """
                runPolicy:
                  checkpointMonitoring:
                    expectedStartCutOffInSeconds: 3600
                    expectedRecurringFrequencyInSeconds: 1800
                """);
        Path job = write("job.yaml", """
                runPolicy:
                  checkpointMonitoring:
                    directory: ckpt
                    expectedStartCutOffInSeconds: null
                """);
        CheckpointRule merged = ConfigLoader.check(List.of(site, job))
                .orThrow()
                .checkpointMonitoring()
                .orElseThrow();
        assertEquals(
                new CheckpointRule(Optional.of("ckpt"), Optional.empty(), OptionalLong.empty(), OptionalLong.of(1800)),
                merged);
        Path off = write("off.yaml", "runPolicy:\n  checkpointMonitoring: null\n");
        assertTrue(ConfigLoader.check(List.of(site, off))
                .orThrow()
                .checkpointMonitoring()
                .isEmpty());
    }

    @Test
    void aProblemOfTheMergeNamesBothFiles() throws IOException {
        Path site =
                write("site.yaml", "runPolicy:\n  checkpointMonitoring: {expectedRecurringFrequencyInSeconds: 60}\n");
        Path job =
                write("job.yaml", "runPolicy:\n  checkpointMonitoring: {expectedRecurringFrequencyInSeconds: null}\n");
        ConfigResult result = ConfigLoader.check(List.of(site, job));
        assertTrue(result.ok(), result.problems().toString());
        assertEquals(site + " + " + job, result.warnings().get(0).file());
    }
}
