package org.slurmautoresume.nodeops.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.slurm.files.UnsafePathException;

class SweepLockTest {

    @TempDir
    Path dir;

    @Test
    void aSecondSweepIsTurnedAwayAndToldWhoHoldsTheLock() throws Exception {
        Path file = dir.resolve("run/sweep.lock");
        try (SweepLock first = SweepLock.acquire(file)) {
            assertTrue(Files.readString(file)
                    .contains("pid=" + ProcessHandle.current().pid()));
            SweepLock.BusyException busy = assertThrows(SweepLock.BusyException.class, () -> SweepLock.acquire(file));
            assertTrue(busy.holder().contains("pid=" + ProcessHandle.current().pid()), busy.holder());
            assertTrue(busy.getMessage().contains(file.toString()), busy.getMessage());
        }
        try (SweepLock again = SweepLock.acquire(file)) {
            assertTrue(Files.exists(file));
        }
    }

    @Test
    void aLockInAFolderOthersCanWriteIsRefused() throws Exception {
        Path shared = Files.createDirectory(dir.resolve("var-lock"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        UncheckedIOException refused = assertThrows(
                UncheckedIOException.class, () -> SweepLock.acquire(shared.resolve("autoresume-sweep.lock")));
        assertTrue(refused.getCause() instanceof UnsafePathException, refused.toString());
        assertFalse(Files.exists(shared.resolve("autoresume-sweep.lock")), "nothing made in a shared folder");
    }

    @Test
    void aPlantedLinkAsTheLockIsNeverWrittenThrough() throws Exception {
        Path victim = Files.writeString(dir.resolve("shadow"), "root:secret\n");
        Path lock = Files.createSymbolicLink(dir.resolve("sweep.lock"), victim);
        UncheckedIOException refused = assertThrows(UncheckedIOException.class, () -> SweepLock.acquire(lock));
        assertTrue(refused.getCause() instanceof UnsafePathException, refused.toString());
        assertEquals("root:secret\n", Files.readString(victim));
    }

    @Test
    void theDefaultLockLivesInARootOwnedRunFolderOnly() {
        assertEquals(Path.of("/run/autoresume/sweep.lock"), SweepLock.defaultPath());
    }
}
