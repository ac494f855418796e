package org.slurmautoresume.slurm.exec;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DebugLoggingTest {

    @Test
    void onlyTheLevelsThatShowDebugLinesAskForThem() {
        for (String level : new String[] {"DEBUG", "debug", " Trace ", "ALL"}) {
            assertTrue(DebugLogging.wanted(level), level);
        }
        for (String level : new String[] {null, "", "INFO", "WARN", "ERROR", "OFF", "DEBUGGING"}) {
            assertFalse(DebugLogging.wanted(level), String.valueOf(level));
        }
    }
}
