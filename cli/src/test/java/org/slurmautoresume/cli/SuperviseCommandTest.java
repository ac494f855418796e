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
        assertEquals(ExitCode.USAGE.code(), SuperviseCommand.handOff(context, new String[] {"supervise", "--", "true"}));
    }
}
