package org.slurmautoresume.slurm.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another uid is simulated by asking for one the files do not have: a test cannot chown as an
 * ordinary user, and the check compares numbers either way.
 */
class OwnedFilesTest {

    @TempDir
    Path dir;

    private int uid;

    @BeforeEach
    void uid() throws IOException {
        uid = OwnedFiles.currentUid();
        assertEquals(uid, (Integer) Files.getAttribute(dir, "unix:uid"), "the test's own files are its uid's");
    }

    @Test
    void aMissingDirectoryIsMadePrivate() throws IOException {
        Path made = OwnedFiles.privateDirectory(dir.resolve("state"), uid);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(made)));
        OwnedFiles.privateDirectory(made, uid); // made earlier by us: fine
    }

    @Test
    void aPlantedLinkInPlaceOfTheDirectoryIsRefused() throws IOException {
        Path target = Files.createDirectory(dir.resolve("target"));
        Path link = Files.createSymbolicLink(dir.resolve("state"), target);
        UnsafePathException e = assertThrows(UnsafePathException.class, () -> OwnedFiles.privateDirectory(link, uid));
        assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
    }

    @Test
    void anotherUsersDirectoryIsRefused() throws IOException {
        Path state = OwnedFiles.privateDirectory(dir.resolve("state"), uid);
        UnsafePathException e =
                assertThrows(UnsafePathException.class, () -> OwnedFiles.privateDirectory(state, uid + 1));
        assertTrue(e.getMessage().contains("belongs to uid " + uid), e.getMessage());
    }

    @Test
    void aDirectoryWithGroupOrOtherBitsIsRefused() throws IOException {
        Path state = OwnedFiles.privateDirectory(dir.resolve("state"), uid);
        for (String mode : new String[] {"rwxr-x---", "rwx-----x", "rwxrwxrwx"}) {
            Files.setPosixFilePermissions(state, PosixFilePermissions.fromString(mode));
            assertThrows(UnsafePathException.class, () -> OwnedFiles.requirePrivateDirectory(state, uid), mode);
        }
    }

    @Test
    void aFileIsWrittenAndReadOnlyWhenItIsTheUsersOwn() throws IOException {
        Path file = OwnedFiles.privateDirectory(dir.resolve("state"), uid).resolve("history");
        assertEquals(Optional.empty(), OwnedFiles.read(file, uid));
        OwnedFiles.append(file, uid, "one\n");
        OwnedFiles.append(file, uid, "two\n");
        assertEquals(Optional.of("one\ntwo\n"), OwnedFiles.read(file, uid));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));

        assertThrows(UnsafePathException.class, () -> OwnedFiles.append(file, uid + 1, "forged\n"));
        assertThrows(UnsafePathException.class, () -> OwnedFiles.read(file, uid + 1));
        assertEquals("one\ntwo\n", Files.readString(file));
    }

    @Test
    void aPlantedLinkIsNeverWrittenThroughNorRead() throws IOException {
        Path victim = Files.writeString(dir.resolve("victim"), "precious\n");
        Path link = Files.createSymbolicLink(dir.resolve("history"), victim);
        assertThrows(UnsafePathException.class, () -> OwnedFiles.append(link, uid, "forged\n"));
        assertThrows(UnsafePathException.class, () -> OwnedFiles.read(link, uid));
        assertThrows(
                UnsafePathException.class,
                () -> OwnedFiles.open(link, uid, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
                        .close());
        assertEquals("precious\n", Files.readString(victim));
        // A dangling link must not be created through either.
        Path dangling = Files.createSymbolicLink(dir.resolve("marker"), dir.resolve("made-by-the-link"));
        assertThrows(UnsafePathException.class, () -> OwnedFiles.append(dangling, uid, "x"));
        assertTrue(Files.notExists(dir.resolve("made-by-the-link")));
    }

    @Test
    void aTrustedDirectoryIsRootsOrOursAndWritableByNobodyElse() throws IOException {
        Path run = Files.createDirectory(dir.resolve("run"));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxr-xr-x"));
        OwnedFiles.requireTrustedDirectory(run, uid);
        OwnedFiles.requireTrustedDirectory(Path.of("/usr"), uid + 1); // root's: trusted by anyone
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThrows(UnsafePathException.class, () -> OwnedFiles.requireTrustedDirectory(run, uid));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxr-xr-x"));
        if (uid == 0) {
            // root's own directory is trusted by anyone: hand it to nobody to see an ordinary owner refused
            Files.setAttribute(run, "unix:uid", 65534);
            assertThrows(UnsafePathException.class, () -> OwnedFiles.requireTrustedDirectory(run, 0));
        } else {
            assertThrows(UnsafePathException.class, () -> OwnedFiles.requireTrustedDirectory(run, uid + 1));
        }
        Path link = Files.createSymbolicLink(dir.resolve("run-link"), Path.of("/usr"));
        assertThrows(UnsafePathException.class, () -> OwnedFiles.requireTrustedDirectory(link, uid));
    }
}
