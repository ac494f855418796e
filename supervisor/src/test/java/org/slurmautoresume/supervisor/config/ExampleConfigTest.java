package org.slurmautoresume.supervisor.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.configfile.ConfigProblem;
import org.slurmautoresume.supervisor.checkpoint.CheckpointLocator;
import org.slurmautoresume.supervisor.checkpoint.CheckpointRule;
import org.slurmautoresume.supervisor.policy.SignalNumber;
import org.slurmautoresume.supervisor.policy.Strategy;
import org.slurmautoresume.supervisor.rules.Heartbeat;
import org.slurmautoresume.supervisor.rules.LogRule;

/** The files in examples/config are what users copy: each must load, alone or over the site file. */
class ExampleConfigTest {

    private static final Path EXAMPLES = locate();

    private static Path locate() {
        Path fromModule = Path.of("..", "examples", "config");
        return Files.isDirectory(fromModule) ? fromModule : Path.of("examples", "config");
    }

    @Test
    void theSiteFileLoadsOnItsOwn() {
        ConfigResult result = ConfigLoader.check(List.of(EXAMPLES.resolve("site.yaml")));
        assertTrue(result.ok(), result.problems().toString());
        assertTrue(result.problems().isEmpty(), result.problems().toString());
        assertEquals(OptionalInt.of(3), result.config().orElseThrow().policy().numRestartBeforeFullJobRestart());
    }

    @Test
    void theJobRulesLoadOverTheSiteFile() {
        ConfigResult result =
                ConfigLoader.check(List.of(EXAMPLES.resolve("site.yaml"), EXAMPLES.resolve("job-log-rules.yaml")));
        assertTrue(result.ok(), result.problems().toString());
        AutoresumeConfig config = result.config().orElseThrow();
        assertEquals(5, config.policy().jobMaxRetryCount(), "the job's budget wins");
        assertEquals(1, config.policy().maxFullJobRestarts(), "the site's stays where the job says nothing");
        assertEquals(
                List.of(
                        "AnyOutput",
                        "JobStart",
                        "JobHangingDetection",
                        "CheckpointsKeepComing",
                        "LowThroughputDetection",
                        "LossSpikeDetection"),
                config.rules().stream().map(LogRule::name).toList());
        LogRule anyOutput = config.rules().get(0);
        assertEquals(".*", anyOutput.logPattern());
        assertEquals(900, anyOutput.expectedRecurringFrequencyInSeconds().getAsLong());
    }

    @Test
    void theJobRulesAloneLackOnlyThePatternTheSiteProvides() {
        ConfigResult result = ConfigLoader.check(List.of(EXAMPLES.resolve("job-log-rules.yaml")));
        assertEquals(1, result.errors().size(), result.problems().toString());
        ConfigProblem problem = result.errors().get(0);
        assertEquals("runPolicy.logMonitoringConfiguration[5].logPattern", problem.path());
        assertTrue(problem.file().endsWith("job-log-rules.yaml"), problem.file());
    }

    @Test
    void theCheckpointRuleLoadsOverTheSiteFileAndLeavesTheDirectoryToTheEnvironment() {
        ConfigResult result =
                ConfigLoader.check(List.of(EXAMPLES.resolve("site.yaml"), EXAMPLES.resolve("job-checkpoints.yaml")));
        assertTrue(result.ok(), result.problems().toString());
        assertTrue(result.problems().isEmpty(), result.problems().toString());
        CheckpointRule rule =
                result.config().orElseThrow().checkpointMonitoring().orElseThrow();
        assertEquals(
                new CheckpointRule(Optional.empty(), Optional.empty(), OptionalLong.of(2700), OptionalLong.of(1800)),
                rule);
        assertEquals(
                Path.of("/scratch/run/ckpt"),
                rule.locator(Map.of(CheckpointLocator.DIR, "/scratch/run/ckpt"))
                        .orElseThrow()
                        .dir());
    }

    @Test
    void theHeartbeatExampleLoadsOverTheSiteFile() {
        ConfigResult result =
                ConfigLoader.check(List.of(EXAMPLES.resolve("site.yaml"), EXAMPLES.resolve("job-heartbeat.yaml")));
        assertTrue(result.ok(), result.problems().toString());
        assertTrue(result.problems().isEmpty(), result.problems().toString());
        assertEquals(
                Optional.of(new Heartbeat(600, 300, 1800)),
                result.config().orElseThrow().heartbeat());
    }

    @Test
    void theStrategiesFileIsJsonAndLoads() {
        ConfigResult result = ConfigLoader.check(List.of(EXAMPLES.resolve("job-strategies.json")));
        assertTrue(result.ok(), result.problems().toString());
        AutoresumeConfig config = result.config().orElseThrow();
        assertEquals(
                List.of(Strategy.DUMP, Strategy.RETRY, Strategy.RECOVER, Strategy.REQUEUE, Strategy.EXIT),
                config.policy().strategies());
        assertEquals(SignalNumber.USR1, config.policy().dump().signal());
        assertEquals(Duration.ofSeconds(120), config.policy().dump().gracePeriod());
    }
}
