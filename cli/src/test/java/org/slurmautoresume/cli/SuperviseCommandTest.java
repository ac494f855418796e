package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SuperviseCommandTest {

    @Test
    void onlyThePluginsExactFormSkipsPicocli() {
        assertTrue(SuperviseCommand.isPluginHandOff(new String[] {"supervise", "--", "srun", "-N2", "x"}));
        assertFalse(SuperviseCommand.isPluginHandOff(new String[] {"supervise", "--help"}));
        assertFalse(SuperviseCommand.isPluginHandOff(new String[] {"supervise", "srun", "x"}));
        assertFalse(SuperviseCommand.isPluginHandOff(new String[] {"supervise", "--"}));
        assertFalse(SuperviseCommand.isPluginHandOff(new String[] {"env", "--", "x"}));
    }

    @Test
    void helpExplainsWhatIsPassedOnAndWhatIsNeverReRun() {
        CliHarness cli = new CliHarness(Map.of());
        assertEquals(0, cli.run("supervise", "--help"));
        assertTrue(cli.out.contains("SIGUSR1"), cli.out);
        assertTrue(cli.out.contains("never re-run"), cli.out);
        assertTrue(cli.out.contains("AUTORESUME_MAX_APP_RETRIES"), cli.out);
    }

    @Test
    void aBadRetryBudgetIsAUsageErrorNamingTheVariable() {
        CliContext context = new CliContext(Map.of("AUTORESUME_MAX_APP_RETRIES", "many"), () -> null);
        assertEquals(
                ExitCode.USAGE.code(), SuperviseCommand.handOff(context, new String[] {"supervise", "--", "true"}));
    }

    @Test
    void aBrokenJobConfigurationStopsTheStepBeforeItStartsAndNamesTheField(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path config = dir.resolve("job.yaml");
        java.nio.file.Files.writeString(config, "runPolicy:\n  jobMaxRetryCount: lots\n");
        CliContext context = new CliContext(Map.of("AUTORESUME_CONFIG", config.toString()), () -> null);
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream saved = System.err;
        System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            assertEquals(
                    ExitCode.CONFIG_INVALID.code(),
                    SuperviseCommand.handOff(context, new String[] {"supervise", "--", "true"}));
        } finally {
            System.setErr(saved);
        }
        String said = err.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(said.contains(config + ": runPolicy.jobMaxRetryCount"), said);
    }

    @Test
    void aCheckpointRuleWithNoDirectoryAnywhereStopsTheStepAndSaysWhatToSet(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path config = dir.resolve("job.yaml");
        java.nio.file.Files.writeString(
                config, "runPolicy:\n  checkpointMonitoring: {expectedRecurringFrequencyInSeconds: 600}\n");
        // Slurm is never asked: the step is refused before it starts.
        CliContext context = new CliContext(
                Map.of("AUTORESUME_CONFIG", config.toString()),
                () -> org.mockito.Mockito.mock(org.slurmautoresume.slurm.exec.CommandRunner.class));
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream saved = System.err;
        System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            assertEquals(
                    ExitCode.USAGE.code(), SuperviseCommand.handOff(context, new String[] {"supervise", "--", "true"}));
        } finally {
            System.setErr(saved);
        }
        String said = err.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(
                said.contains("autoresume: runPolicy.checkpointMonitoring.directory: no directory to watch; set it,"
                        + " or set AUTORESUME_CHECKPOINT_DIR in the step's environment"),
                said);
    }

    @Test
    void helpSaysWhereRulesAndBudgetsComeFrom() {
        CliHarness cli = new CliHarness(Map.of());
        assertEquals(0, cli.run("supervise", "--help"));
        assertTrue(cli.out.contains("AUTORESUME_CONFIG"), cli.out);
        assertTrue(cli.out.contains("--config"), cli.out);
        assertTrue(cli.out.contains("override the files"), cli.out);
    }
}
