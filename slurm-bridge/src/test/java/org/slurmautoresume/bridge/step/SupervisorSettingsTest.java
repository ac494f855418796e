package org.slurmautoresume.bridge.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SupervisorSettingsTest {

    @Test
    void defaultsAreNoRetriesAndTmp() {
        SupervisorSettings settings = SupervisorSettings.fromEnvironment(Map.of());
        assertEquals(0, settings.maxAppRetries());
        assertEquals(Path.of("/tmp"), settings.stateDir());
    }

    @Test
    void readsTheEnvironment() {
        SupervisorSettings settings = SupervisorSettings.fromEnvironment(
                Map.of("AUTORESUME_MAX_APP_RETRIES", " 2 ", "TMPDIR", "/scratch/u"));
        assertEquals(2, settings.maxAppRetries());
        assertEquals(Path.of("/scratch/u"), settings.stateDir());
    }

    @Test
    void badValuesNameTheVariable() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SupervisorSettings.fromEnvironment(Map.of("AUTORESUME_MAX_APP_RETRIES", "lots")));
        assertTrue(e.getMessage().contains("AUTORESUME_MAX_APP_RETRIES") && e.getMessage().contains("lots"));
        assertThrows(IllegalArgumentException.class,
                () -> SupervisorSettings.fromEnvironment(Map.of("AUTORESUME_MAX_APP_RETRIES", "-1")));
    }
}
