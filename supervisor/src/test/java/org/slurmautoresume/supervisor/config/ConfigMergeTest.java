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
import org.slurmautoresume.supervisor.policy.Strategy;
import org.slurmautoresume.supervisor.rules.LogRule;

/** The job's file beats the site's, field by field; rules meet by name. */
class ConfigMergeTest {

    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    private static final String SITE = """
            runPolicy:
              jobMaxRetryCount: 10
              restartPolicy: {numRestartBeforeFullJobRestart: 3, evalPeriodSeconds: 21600, maxFullJobRestarts: 1}
              recoverStrategy: [retry, recover, requeue, exit]
              logMonitoringConfiguration:
                - name: hang
                  logPattern: ".*step.*"
                  expectedStartCutOffInSeconds: 600
                  expectedRecurringFrequencyInSeconds: 300
            """;

    @Test
    void theJobWinsFieldByFieldAndRulesMeetByName() throws IOException {
        Path site = write("site.yaml", SITE);
        Path job = write("job.yaml", """
                runPolicy:
                  restartPolicy: {maxFullJobRestarts: 0}
                  recoverStrategy: [recover, exit]
                  logMonitoringConfiguration:
                    - name: hang
                      expectedRecurringFrequencyInSeconds: 60
                      expectedStartCutOffInSeconds: null
                    - name: loss
                      logPattern: ".*loss (\\\\d+).*"
                      metricThreshold: 5
                      operator: gt
                """);
        AutoresumeConfig config = ConfigLoader.check(List.of(site, job)).orThrow();
        assertEquals(10, config.policy().jobMaxRetryCount());
        assertEquals(3, config.policy().numRestartBeforeFullJobRestart().getAsInt(), "kept from the site");
        assertEquals(0, config.policy().maxFullJobRestarts(), "set by the job");
        assertEquals(List.of(Strategy.RECOVER, Strategy.EXIT), config.policy().strategies(), "lists are replaced");
        LogRule hang = config.rules().get(0);
        assertEquals(".*step.*", hang.logPattern());
        assertEquals(OptionalLong.of(60), hang.expectedRecurringFrequencyInSeconds());
        assertEquals(OptionalLong.empty(), hang.expectedStartCutOffInSeconds(), "null clears the site's value");
        assertEquals("loss", config.rules().get(1).name());
    }

    @Test
    void aProblemOfTheMergeNamesTheFilesTheRuleCameFrom() throws IOException {
        Path site = write("site.yaml", SITE);
        Path job = write("job.yaml", """
                runPolicy:
                  logMonitoringConfiguration:
                    - name: hang
                      operator: lt
                """);
        ConfigResult result = ConfigLoader.check(List.of(site, job));
        assertFalse(result.ok());
        ConfigProblem problem = result.errors().get(0);
        assertEquals(site + " + " + job, problem.file());
        assertEquals("runPolicy.logMonitoringConfiguration[0].metricThreshold", problem.path());
    }

    @Test
    void sourcesTakeTheOptionOverTheEnvironmentAndTheDefaultSiteFileIsOptional() {
        Map<String, String> env =
                Map.of(ConfigLoader.JOB_ENV, "/env/job.yaml", ConfigLoader.SITE_ENV, "/env/site.yaml");
        List<ConfigSource> fromEnv = ConfigLoader.sources(Optional.empty(), Optional.empty(), env);
        assertEquals(
                List.of(
                        new ConfigSource(Path.of("/env/site.yaml"), "site", true),
                        new ConfigSource(Path.of("/env/job.yaml"), "job", true)),
                fromEnv);
        List<ConfigSource> fromOptions =
                ConfigLoader.sources(Optional.of(Path.of("/o/site.yaml")), Optional.of(Path.of("/o/job.yaml")), env);
        assertEquals(Path.of("/o/job.yaml"), fromOptions.get(1).path());
        List<ConfigSource> none = ConfigLoader.sources(Optional.empty(), Optional.empty(), Map.of());
        assertEquals(List.of(new ConfigSource(Path.of(ConfigLoader.DEFAULT_SITE), "site", false)), none);
    }

    @Test
    void aMissingOptionalSiteFileIsSkippedAndAMissingNamedFileIsAnError() throws IOException {
        Path job = write("job.yaml", "runPolicy: {jobMaxRetryCount: 4}\n");
        ConfigResult ok = ConfigLoader.load(List.of(
                new ConfigSource(dir.resolve("absent.yaml"), "site", false), new ConfigSource(job, "job", true)));
        assertEquals(List.of(job), ok.files());
        assertEquals(4, ok.orThrow().policy().jobMaxRetryCount());
        ConfigResult missing = ConfigLoader.load(List.of(new ConfigSource(dir.resolve("gone.yaml"), "job", true)));
        assertEquals(
                dir.resolve("gone.yaml") + ": the file does not exist",
                missing.errors().get(0).toString());
    }

    @Test
    void theRenderedConfigurationReadsBackToTheSameConfiguration() throws IOException {
        Path site = write("site.yaml", SITE);
        AutoresumeConfig config = ConfigLoader.check(List.of(site)).orThrow();
        String yaml = ConfigRenderer.yaml(config);
        assertTrue(yaml.contains("numRestartBeforeFullJobRestart: 3"), yaml);
        assertEquals(config, ConfigLoader.checkText("shown.yaml", yaml).orThrow());
    }
}
