package org.slurmautoresume.supervisor.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.configfile.ConfigProblem;

/** Every error names the file, the field and why, and a file's errors all come at once. */
class ConfigErrorsTest {

    /** Each error's message by its field's path (the checkpoint rule's tests use it too). */
    static Map<String, String> errorsByPath(ConfigResult result) {
        return result.errors().stream()
                .collect(Collectors.toMap(ConfigProblem::path, ConfigProblem::message, (a, b) -> a + " | " + b));
    }

    @Test
    void everyFieldErrorInAFileIsReportedTogether() {
        String yaml = """
                runPolicy:
                  jobMaxRetryCount: -1
                  restartPolicy:
                    evalPeriodSeconds: "6h"
                    maxFullJobRestart: 1
                  recoverStrategy: "retry, recover-in-place, exit"
                  dump: {signal: KILL, gracePeriodSeconds: 1.5}
                  logMonitoringConfiguration:
                    - name: "A"
                      logPattern: ".*(unclosed.*"
                    - name: "B"
                      logPattern: ".*loss.*"
                      operator: "ge"
                      metricThreshold: "two"
                    - name: "A"
                      logPattern: ".*"
                      expectedStartCutOffInSeconds: 0
                      expectedRecurringFrequencyInSecond: 5
                """;
        ConfigResult result = ConfigLoader.checkText("job.yaml", yaml);
        assertFalse(result.ok());
        Map<String, String> errors = errorsByPath(result);
        assertEquals("must not be negative, found -1", errors.get("runPolicy.jobMaxRetryCount"));
        assertEquals(
                "expected a whole number, found text \"6h\"", errors.get("runPolicy.restartPolicy.evalPeriodSeconds"));
        assertTrue(
                errors.get("runPolicy.restartPolicy.maxFullJobRestart")
                        .startsWith("unknown field; known here: " + "evalPeriodSeconds, maxFullJobRestarts"),
                errors.toString());
        assertTrue(
                errors.get("runPolicy.recoverStrategy").contains("unknown strategy \"recover-in-place\"")
                        && errors.get("runPolicy.recoverStrategy").contains("use \"retry\""),
                errors.toString());
        assertTrue(errors.get("runPolicy.dump.signal").startsWith("unknown signal \"KILL\""), errors.toString());
        assertEquals("expected a whole number, found number 1.5", errors.get("runPolicy.dump.gracePeriodSeconds"));
        assertEquals(
                "bad regular expression at position 13: Unclosed group in \".*(unclosed.*\"",
                errors.get("runPolicy.logMonitoringConfiguration[0].logPattern"));
        assertEquals(
                "unknown operator \"ge\"; use one of gt, gteq, lt, lteq, eq",
                errors.get("runPolicy.logMonitoringConfiguration[1].operator"));
        assertEquals(
                "expected a number, found text \"two\"",
                errors.get("runPolicy.logMonitoringConfiguration[1].metricThreshold"));
        assertEquals(
                "\"A\" is already the name of another rule",
                errors.get("runPolicy.logMonitoringConfiguration[2].name"));
        assertEquals(
                "must be at least 1, found 0",
                errors.get("runPolicy.logMonitoringConfiguration[2].expectedStartCutOffInSeconds"));
        assertTrue(errors.containsKey("runPolicy.logMonitoringConfiguration[2].expectedRecurringFrequencyInSecond"));
        assertEquals(12, result.errors().size(), result.errors().toString());
        assertTrue(result.errors().stream().allMatch(p -> p.file().equals("job.yaml")));
        assertTrue(result.errors().get(0).toString().startsWith("job.yaml: runPolicy.jobMaxRetryCount: "));
    }

    @Test
    void aThresholdNeedsACaptureGroupAndAnOperator() {
        String yaml = """
                runPolicy:
                  logMonitoringConfiguration:
                    - name: "NoGroup"
                      logPattern: ".*samples/sec: \\\\d+.*"
                      metricThreshold: 80
                      operator: lteq
                    - name: "NoOperator"
                      logPattern: ".*loss (\\\\d+).*"
                      metricThreshold: 2
                    - name: "NoThreshold"
                      logPattern: ".*loss (\\\\d+).*"
                      operator: gt
                """;
        Map<String, String> errors = errorsByPath(ConfigLoader.checkText("rules.yaml", yaml));
        assertTrue(
                errors.get("runPolicy.logMonitoringConfiguration[0].metricThreshold")
                        .startsWith("logPattern has no capture group"),
                errors.toString());
        assertTrue(
                errors.get("runPolicy.logMonitoringConfiguration[1].operator")
                        .startsWith("metricThreshold needs an operator"),
                errors.toString());
        assertEquals(
                "operator needs a metricThreshold to compare with",
                errors.get("runPolicy.logMonitoringConfiguration[2].metricThreshold"));
    }

    @Test
    void exitMustComeLastAndStrategiesOnce() {
        Map<String, String> errors =
                errorsByPath(ConfigLoader.checkText("s.yaml", "runPolicy:\n  recoverStrategy: [exit, retry, retry]\n"));
        assertTrue(errors.get("runPolicy.recoverStrategy[2]").contains("listed twice"), errors.toString());
        assertTrue(
                errors.get("runPolicy.recoverStrategy").contains("\"exit\" must come last: retry after it"),
                errors.toString());
    }

    @Test
    void unknownTopLevelFieldsAndWrongShapesAreNamed() {
        Map<String, String> errors = errorsByPath(
                ConfigLoader.checkText("t.yaml", "runPolicy:\n  logMonitoringConfiguration: {name: x}\nspec: {}\n"));
        assertTrue(errors.get("spec").startsWith("unknown field; known here: runPolicy"), errors.toString());
        assertEquals("expected a list of rules, found a mapping", errors.get("runPolicy.logMonitoringConfiguration"));
    }

    @Test
    void syntaxErrorsGiveTheLineAndDuplicateKeysAreRefused() {
        ConfigResult broken = ConfigLoader.checkText("b.yaml", "runPolicy:\n  jobMaxRetryCount: [1\n");
        assertTrue(
                broken.errors().get(0).message().startsWith("not valid YAML at line "),
                broken.errors().toString());
        ConfigResult twice =
                ConfigLoader.checkText("d.yaml", "runPolicy:\n  jobMaxRetryCount: 1\n  jobMaxRetryCount: 2\n");
        assertTrue(
                twice.errors().get(0).message().contains("jobMaxRetryCount"),
                twice.errors().toString());
        ConfigResult json = ConfigLoader.checkText("j.json", "{\"runPolicy\": {\"jobMaxRetryCount\": 1,}}");
        assertTrue(
                json.errors().get(0).message().startsWith("not valid JSON at line 1"),
                json.errors().toString());
    }

    @Test
    void warningsDoNotStopLoading() {
        ConfigResult result = ConfigLoader.checkText("w.yaml", """
                runPolicy:
                  cleanPodPolicy: All
                  recoverStrategy: retry,exit
                  dump: {signal: USR2}
                  logMonitoringConfiguration:
                    - {name: quiet, logPattern: ".*x.*", metricEvaluationDataPoints: 3}
                """);
        assertTrue(result.ok(), result.problems().toString());
        List<String> warnings =
                result.warnings().stream().map(ConfigProblem::path).toList();
        assertEquals(
                List.of(
                        "runPolicy.cleanPodPolicy",
                        "runPolicy.dump",
                        "runPolicy.logMonitoringConfiguration[0].metricEvaluationDataPoints",
                        "runPolicy.logMonitoringConfiguration[0]"),
                warnings);
        assertTrue(result.warnings().get(0).toString().contains("warning: "));
    }

    @Test
    void anEmptyFileMeansTheDefaults() {
        ConfigResult result = ConfigLoader.checkText("empty.yaml", "");
        assertEquals(AutoresumeConfig.DEFAULT, result.orThrow());
    }

    @Test
    void orThrowCarriesEveryError() {
        ConfigResult result = ConfigLoader.checkText("x.yaml", "runPolicy: {jobMaxRetryCount: -1, bogus: 1}\n");
        ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class, result::orThrow);
        assertEquals(2, e.problems().size());
        assertTrue(e.getMessage().contains("x.yaml: runPolicy.bogus: unknown field"), e.getMessage());
    }
}
