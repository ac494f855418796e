package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's record of its own marks: private, never through a link, surviving a restart. */
class MarkLedgerTest {

    @TempDir
    Path tmp;

    private static MarkLedger.Mark mark(String node, String job) {
        return new MarkLedger.Mark(node, job, 1001, "Replace", "fail", "2026-11-25T00:00:00Z", "2026-11-25T00:00:01");
    }

    @Test
    void marksSurviveAReopenAndTheFilesArePrivate() throws IOException {
        Path dir = tmp.resolve("state");
        MarkLedger ledger = MarkLedger.open(dir);
        ledger.record(mark("node2", "6"));
        ledger.record(mark("node3", "7"));
        ledger.forget("node3");

        MarkLedger again = MarkLedger.open(dir);
        assertTrue(again.markedFor("node2", "6", 1001));
        assertFalse(again.markedFor("node2", "6", 1002), "the same job id under another owner is another job");
        assertFalse(again.markedFor("node2", "7", 1001));
        assertEquals(Optional.empty(), again.markOf("node3"));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        assertEquals(
                "rw-------",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(MarkLedger.FILE))));
    }

    @Test
    void aPlantedLinkInPlaceOfTheFileIsRefused() throws IOException {
        Path dir = tmp.resolve("state");
        MarkLedger.open(dir);
        Path elsewhere = Files.writeString(tmp.resolve("forged.json"), "[]");
        Files.createSymbolicLink(dir.resolve(MarkLedger.FILE), elsewhere);
        IOException e = assertThrows(IOException.class, () -> MarkLedger.open(dir));
        assertTrue(e.getMessage().contains("without following a link"), e.getMessage());
    }

    @Test
    void aLinkInPlaceOfTheDirectoryIsRefused() throws IOException {
        Path real = Files.createDirectory(
                tmp.resolve("real"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path link = Files.createSymbolicLink(tmp.resolve("state"), real);
        IOException e = assertThrows(IOException.class, () -> MarkLedger.open(link));
        assertTrue(e.getMessage().contains("not a directory"), e.getMessage());
        assertTrue(
                Files.isSymbolicLink(link) && !Files.exists(real.resolve(MarkLedger.FILE), LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void aDirectoryOthersMayWriteIsRefused() throws IOException {
        Path dir = Files.createDirectory(
                tmp.resolve("state"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        IOException e = assertThrows(IOException.class, () -> MarkLedger.open(dir));
        assertTrue(e.getMessage().contains("0700"), e.getMessage());
    }

    @Test
    void aFileOthersMayReadIsRefused() throws IOException {
        Path dir = tmp.resolve("state");
        MarkLedger.open(dir).record(mark("node2", "6"));
        Files.setPosixFilePermissions(dir.resolve(MarkLedger.FILE), PosixFilePermissions.fromString("rw-rw-rw-"));
        IOException e = assertThrows(IOException.class, () -> MarkLedger.open(dir));
        assertTrue(e.getMessage().contains("0600"), e.getMessage());
    }

    /** The JDK names a uid without a passwd entry by its digits; such a name is nobody, never that uid. */
    @Test
    void aNameOfDigitsIsNotTakenAsAUid() {
        assertEquals(OptionalLong.of(0), UnixUsers.uidOf("root"));
        assertEquals(OptionalLong.empty(), UnixUsers.uidOf("0"));
        assertEquals(OptionalLong.empty(), UnixUsers.uidOf("4000000123"));
    }
}
