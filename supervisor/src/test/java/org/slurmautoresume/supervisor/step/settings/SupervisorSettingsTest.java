package org.slurmautoresume.supervisor.step.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.supervisor.recovery.Replacement;
import org.slurmautoresume.supervisor.step.record.JobStateDirectory;

class SupervisorSettingsTest {

    @Test
    void defaultsAreNoRetriesAndTmp() {
        SupervisorSettings settings = SupervisorSettings.fromEnvironment(Map.of());
        assertEquals(0, settings.maxAppRetries());
        assertEquals(Path.of("/tmp/autoresume-" + JobStateDirectory.uid()), settings.stateDir());
    }

    @Test
    void anUnrepairedNodeFaultRequeuesByDefaultUnlessExitIsSaid() {
        assertEquals(
                SupervisorSettings.NodeFaultFallback.REQUEUE,
                SupervisorSettings.fromEnvironment(Map.of()).nodeFaultFallback());
        assertEquals(
                SupervisorSettings.NodeFaultFallback.EXIT,
                SupervisorSettings.fromEnvironment(Map.of(SupervisorSettings.NODE_FAULT_FALLBACK, "exit"))
                        .nodeFaultFallback());
        assertEquals(
                SupervisorSettings.NodeFaultFallback.EXIT,
                SupervisorSettings.fromEnvironment(Map.of(SupervisorSettings.ON_EXHAUSTED, "exit"))
                        .nodeFaultFallback(),
                "exit: no requeue at all");
        assertEquals(
                SupervisorSettings.NodeFaultFallback.REQUEUE,
                SupervisorSettings.fromEnvironment(Map.of(
                                SupervisorSettings.ON_EXHAUSTED,
                                "exit",
                                SupervisorSettings.NODE_FAULT_FALLBACK,
                                "requeue"))
                        .nodeFaultFallback(),
                "the narrower setting wins");
        assertThrows(
                IllegalArgumentException.class,
                () -> SupervisorSettings.fromEnvironment(Map.of(SupervisorSettings.NODE_FAULT_FALLBACK, "fail")));
    }

    @Test
    void theControllerOutageBoundIsTheClustersUnlessSetInSeconds() {
        assertTrue(
                SupervisorSettings.fromEnvironment(Map.of()).controllerOutage().isEmpty());
        assertEquals(
                java.time.Duration.ofSeconds(600),
                SupervisorSettings.fromEnvironment(Map.of(SupervisorSettings.CONTROLLER_OUTAGE, "600"))
                        .controllerOutage()
                        .orElseThrow());
        assertEquals(
                java.time.Duration.ZERO,
                SupervisorSettings.fromEnvironment(Map.of(SupervisorSettings.CONTROLLER_OUTAGE, "0"))
                        .controllerOutage()
                        .orElseThrow());
        for (String bad : new String[] {"-1", "2m", "forever"}) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class,
                    () -> SupervisorSettings.fromEnvironment(Map.of(SupervisorSettings.CONTROLLER_OUTAGE, bad)));
            assertTrue(e.getMessage().startsWith(SupervisorSettings.CONTROLLER_OUTAGE), e.getMessage());
        }
    }

    @Test
    void readsTheEnvironment() {
        SupervisorSettings settings =
                SupervisorSettings.fromEnvironment(Map.of("AUTORESUME_MAX_APP_RETRIES", " 2 ", "TMPDIR", "/scratch/u"));
        assertEquals(2, settings.maxAppRetries());
        assertEquals(Path.of("/scratch/u/autoresume-" + JobStateDirectory.uid()), settings.stateDir());
    }

    @Test
    void aSparePoolAndTheNodeBudgetComeFromTheEnvironment() {
        SupervisorSettings settings = SupervisorSettings.fromEnvironment(Map.of(
                "AUTORESUME_SPARE_NODES",
                "node4",
                "AUTORESUME_MAX_NODE_RETRIES",
                "1",
                "AUTORESUME_AGENT_SOCKET",
                "/tmp/a.sock"));
        assertTrue(settings.spares().isPresent());
        assertEquals(1, settings.maxNodeRetries());
        assertEquals(Path.of("/tmp/a.sock"), settings.agentSocket());
        assertTrue(SupervisorSettings.fromEnvironment(Map.of()).spares().isEmpty());
        assertEquals(2, SupervisorSettings.fromEnvironment(Map.of()).maxNodeRetries());
    }

    @Test
    void theSameFailureLimitIsThreeByDefaultZeroTurnsItOffAndOneIsRefused() {
        assertEquals(3, SupervisorSettings.fromEnvironment(Map.of()).maxSameFailures());
        assertEquals(
                0,
                SupervisorSettings.fromEnvironment(Map.of(SupervisorSettings.MAX_SAME_FAILURES, "0"))
                        .maxSameFailures());
        assertEquals(
                5,
                SupervisorSettings.fromEnvironment(Map.of(SupervisorSettings.MAX_SAME_FAILURES, " 5 "))
                        .maxSameFailures());
        for (String bad : List.of("1", "-2", "three")) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> SupervisorSettings.fromEnvironment(Map.of(SupervisorSettings.MAX_SAME_FAILURES, bad)));
            assertTrue(e.getMessage().contains("AUTORESUME_MAX_SAME_FAILURES"), e.getMessage());
        }
    }

    @Test
    void badValuesNameTheVariable() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> SupervisorSettings.fromEnvironment(Map.of("AUTORESUME_MAX_APP_RETRIES", "lots")));
        assertTrue(e.getMessage().contains("AUTORESUME_MAX_APP_RETRIES")
                && e.getMessage().contains("lots"));
        assertThrows(
                IllegalArgumentException.class,
                () -> SupervisorSettings.fromEnvironment(Map.of("AUTORESUME_MAX_APP_RETRIES", "-1")));
    }

    @Test
    void aSparePoolMeansTheSpareProviderAndTheOthersAreChosenByName() {
        assertEquals(
                Replacement.SPARE,
                SupervisorSettings.fromEnvironment(Map.of("AUTORESUME_SPARE_PARTITION", "spares"))
                        .replacement()
                        .orElseThrow());
        assertTrue(SupervisorSettings.fromEnvironment(Map.of()).replacement().isEmpty());
        SupervisorSettings same = SupervisorSettings.fromEnvironment(Map.of(
                "AUTORESUME_REPLACEMENT",
                "Same-Hostname",
                "AUTORESUME_REPLACEMENT_TIMEOUT",
                "45",
                "AUTORESUME_ON_EXHAUSTED",
                "requeue"));
        assertEquals(Replacement.SAME_HOSTNAME, same.replacement().orElseThrow());
        assertEquals(45, same.replacementTimeout().toSeconds());
        assertEquals(SupervisorSettings.OnExhausted.REQUEUE, same.onExhausted());
        assertEquals(
                300,
                SupervisorSettings.fromEnvironment(Map.of())
                        .replacementTimeout()
                        .toSeconds());
        assertEquals(
                SupervisorSettings.OnExhausted.EXIT,
                SupervisorSettings.fromEnvironment(Map.of()).onExhausted());
    }

    @Test
    void aProviderWithoutWhatItNeedsOrAnUnknownWordIsRefused() {
        IllegalArgumentException spare = assertThrows(
                IllegalArgumentException.class,
                () -> SupervisorSettings.fromEnvironment(Map.of("AUTORESUME_REPLACEMENT", "spare")));
        assertTrue(spare.getMessage().contains("AUTORESUME_SPARE_NODES"), spare.getMessage());
        IllegalArgumentException word = assertThrows(
                IllegalArgumentException.class,
                () -> SupervisorSettings.fromEnvironment(Map.of("AUTORESUME_REPLACEMENT", "magic")));
        assertTrue(
                word.getMessage().contains("same-hostname") && word.getMessage().contains("magic"), word.getMessage());
        IllegalArgumentException exhausted = assertThrows(
                IllegalArgumentException.class,
                () -> SupervisorSettings.fromEnvironment(Map.of("AUTORESUME_ON_EXHAUSTED", "panic")));
        assertTrue(exhausted.getMessage().contains("exit or requeue"), exhausted.getMessage());
    }

    @Test
    void theAgentOutageBoundIsTwoAndAHalfMinutesUnlessSaidInSeconds() {
        assertEquals(Duration.ofSeconds(150), SupervisorSettings.agentOutage(Map.of()));
        assertEquals(
                Duration.ofSeconds(20), SupervisorSettings.agentOutage(Map.of(SupervisorSettings.AGENT_OUTAGE, "20")));
        assertEquals(Duration.ZERO, SupervisorSettings.agentOutage(Map.of(SupervisorSettings.AGENT_OUTAGE, "0")));
        assertThrows(
                IllegalArgumentException.class,
                () -> SupervisorSettings.agentOutage(Map.of(SupervisorSettings.AGENT_OUTAGE, "-1")));
        assertThrows(
                IllegalArgumentException.class,
                () -> SupervisorSettings.agentOutage(Map.of(SupervisorSettings.AGENT_OUTAGE, "2m")));
    }
}
