package org.slurmautoresume.nodeops.sweep;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SweepLockTest {

    @TempDir
    Path dir;

    @Test
    void aSecondSweepIsTurnedAwayAndToldWhoHoldsTheLock() throws Exception {
        Path file = dir.resolve("run/sweep.lock");
        try (SweepLock first = SweepLock.acquire(file)) {
            assertTrue(Files.readString(file).contains("pid=" + ProcessHandle.current().pid()));
            SweepLock.BusyException busy = assertThrows(SweepLock.BusyException.class, () -> SweepLock.acquire(file));
            assertTrue(busy.holder().contains("pid=" + ProcessHandle.current().pid()), busy.holder());
            assertTrue(busy.getMessage().contains(file.toString()), busy.getMessage());
        }
        try (SweepLock again = SweepLock.acquire(file)) {
            assertTrue(Files.exists(file));
        }
    }
}
