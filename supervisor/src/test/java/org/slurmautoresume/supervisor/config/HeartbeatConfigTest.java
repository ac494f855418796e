package org.slurmautoresume.supervisor.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.configfile.ConfigProblem;
import org.slurmautoresume.supervisor.rules.Heartbeat;
import org.slurmautoresume.supervisor.rules.LogRule;

/** {@code runPolicy.heartbeat}: read, checked, shown, and watched as one more log rule. */
class HeartbeatConfigTest {

    @Test
    void anEmptySectionTurnsItOnWithTheSeedsFigures() {
        AutoresumeConfig config = ConfigLoader.checkText("job.yaml", "runPolicy:\n  heartbeat: {}\n")
                .orThrow();
        assertEquals(Optional.of(Heartbeat.DEFAULTS), config.heartbeat());
        assertEquals(
                List.of(Heartbeat.NAME),
                config.watchedRules().stream().map(LogRule::name).toList());
        assertTrue(config.rules().isEmpty(), "the configured rules stay as written");
        assertTrue(ConfigRenderer.yaml(config).endsWith("""
                  heartbeat:
                    startupTimeoutSeconds: 600
                    steadyTimeoutSeconds: 300
                    checkpointTimeoutSeconds: 1800
                """), ConfigRenderer.yaml(config));
    }

    @Test
    void eachPhaseCanBeSetAndTheRuleCarriesIt() {
        AutoresumeConfig config = ConfigLoader.checkText("job.yaml", """
                runPolicy:
                  heartbeat: {startupTimeoutSeconds: 120, steadyTimeoutSeconds: 30, checkpointTimeoutSeconds: 900}
                """).orThrow();
        LogRule rule = config.watchedRules().get(0);
        assertEquals(
                List.of(120L, 30L, 900L),
                List.of(
                        rule.expectedStartCutOffInSeconds().getAsLong(),
                        rule.expectedRecurringFrequencyInSeconds().getAsLong(),
                        rule.longerWait().orElseThrow().seconds()));
    }

    @Test
    void withoutTheSectionThereIsNoHeartbeat() {
        AutoresumeConfig config = ConfigLoader.checkText("job.yaml", "runPolicy:\n  jobMaxRetryCount: 3\n")
                .orThrow();
        assertEquals(Optional.empty(), config.heartbeat());
        assertTrue(config.watchedRules().isEmpty());
        assertFalse(ConfigRenderer.yaml(config).contains("heartbeat"));
    }

    @Test
    void badValuesAndAClashingRuleNameAreErrors() {
        ConfigResult bad = ConfigLoader.checkText("job.yaml", """
                runPolicy:
                  heartbeat: {steadyTimeoutSeconds: 0, beatEvery: 5}
                """);
        assertFalse(bad.ok());
        List<String> where = bad.problems().stream()
                .filter(ConfigProblem::isError)
                .map(p -> p.toString())
                .toList();
        assertTrue(where.stream().anyMatch(p -> p.contains("steadyTimeoutSeconds")), where.toString());

        ConfigResult clash = ConfigLoader.checkText("job.yaml", """
                runPolicy:
                  heartbeat: {}
                  logMonitoringConfiguration:
                    - {name: Heartbeat, logPattern: ".*beat.*", expectedRecurringFrequencyInSeconds: 60}
                """);
        assertFalse(clash.ok(), clash.problems().toString());
        assertTrue(
                clash.problems().toString().contains("already named \"Heartbeat\""),
                clash.problems().toString());
    }

    @Test
    void aCheckpointTimeoutShorterThanSteadyIsAWarning() {
        ConfigResult result = ConfigLoader.checkText("job.yaml", """
                runPolicy:
                  heartbeat: {steadyTimeoutSeconds: 300, checkpointTimeoutSeconds: 60}
                """);
        assertTrue(result.ok(), result.problems().toString());
        assertTrue(
                result.problems().stream()
                        .anyMatch(p -> !p.isError() && p.toString().contains("checkpointTimeoutSeconds")),
                result.problems().toString());
    }
}
