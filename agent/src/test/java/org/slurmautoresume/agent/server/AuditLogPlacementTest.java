package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.slurm.files.UnsafePathException;

/** The root agent's audit log is never written through a link nor kept where others can write. */
class AuditLogPlacementTest {

    @TempDir
    Path dir;

    @Test
    void aNewLogIsReadableByTheAdminGroupOnly() throws Exception {
        Path file = dir.resolve("log/audit.log");
        new AuditLog(file).close();
        assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }

    @Test
    void aPlantedLinkIsRefusedAndItsTargetLeftAlone() throws Exception {
        Path victim = Files.writeString(dir.resolve("passwd"), "root:x:0:0\n");
        Path link = Files.createSymbolicLink(dir.resolve("audit.log"), victim);
        assertThrows(UnsafePathException.class, () -> new AuditLog(link));
        assertEquals("root:x:0:0\n", Files.readString(victim));
    }

    @Test
    void aFolderOthersCanWriteIsRefused() throws Exception {
        Path shared = Files.createDirectory(dir.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThrows(UnsafePathException.class, () -> new AuditLog(shared.resolve("audit.log")));
        assertFalse(Files.exists(shared.resolve("audit.log")));
    }
}
