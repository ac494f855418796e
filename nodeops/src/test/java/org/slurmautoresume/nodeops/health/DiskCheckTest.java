package org.slurmautoresume.nodeops.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.slurm.exec.CommonsExecCommandRunner;

/**
 * What the disk check asks for: a filesystem short of space or inodes is FREE_SPACE (drained,
 * lifted when space is back), never REBOOT, even when the probe write it makes fails for want
 * of space; a missing or read-only mount and a write refused with room to spare stay REBOOT.
 */
class DiskCheckTest {

    @TempDir
    Path temp;

    private FakeTools tools;

    private CheckResult check(Path mountPoint, String options, int floor) throws IOException {
        if (tools == null) {
            tools = new FakeTools(Files.createDirectories(temp.resolve("bin")));
        }
        Path table = temp.resolve("mounts");
        Files.writeString(table, "/dev/sdb1 " + mountPoint + " ext4 " + options + " 0 0\n");
        HealthSettings settings = HealthSettings.defaults().withMounts(table, List.of(mountPoint), floor);
        return new DiskCheck()
                .run(new HealthContext(
                        new CommonsExecCommandRunner(), new ToolLocator(tools.path()), settings, OptionalInt::empty));
    }

    /** A stand-in for {@code stat -f -c '%c %d'} printing these inode counts. */
    private void inodes(String answer) throws IOException {
        tools = new FakeTools(Files.createDirectories(temp.resolve("bin")));
        tools.script(
                "stat",
                "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + temp.resolve("bin/stat.calls") + "'\n" + "echo '" + answer
                        + "'\n");
    }

    @Test
    void aFilesystemShortOfSpaceIsFreeSpaceNamingItsUse() throws IOException {
        Path data = Files.createDirectories(temp.resolve("data"));
        CheckResult result = check(data, "rw,relatime", 100);
        assertEquals(HealthStatus.FAILED, result.status());
        assertEquals(HealthAction.FREE_SPACE, result.action());
        assertEquals(1, result.faults().size(), result.faults().toString());
        assertTrue(
                result.faults().get(0).matches(java.util.regex.Pattern.quote(data.toString()) + " \\d{1,3}% used"),
                result.faults().toString());
        assertTrue(
                result.evidence().contains(data + " is writable"),
                result.evidence().toString());
    }

    @Test
    void aWriteRefusedOnAFullFilesystemIsTheShortageNotASecondFault() throws IOException {
        // A regular file where a directory should be refuses the probe as a full disk refuses it.
        Path notADirectory = Files.writeString(temp.resolve("full"), "x");
        CheckResult full = check(notADirectory, "rw", 100);
        assertEquals(HealthAction.FREE_SPACE, full.action(), full.evidence().toString());
        assertTrue(
                full.evidence().stream().anyMatch(e -> e.startsWith("cannot write to " + notADirectory)),
                full.evidence().toString());
    }

    @Test
    void aWriteRefusedWithSpaceFreeIsStillAFault() throws IOException {
        Path notADirectory = Files.writeString(temp.resolve("broken"), "x");
        CheckResult result = check(notADirectory, "rw", 0);
        assertEquals(HealthAction.REBOOT, result.action());
        assertTrue(result.summary().startsWith("cannot write to " + notADirectory), result.summary());
    }

    @Test
    void aReadOnlyFilesystemIsAFaultEvenWhenFull() throws IOException {
        Path data = Files.createDirectories(temp.resolve("data"));
        CheckResult result = check(data, "ro,relatime", 100);
        assertEquals(HealthAction.REBOOT, result.action());
        assertTrue(
                result.faults().stream().noneMatch(f -> f.endsWith("% used")),
                result.faults().toString());
    }

    @Test
    void inodesRunningOutAreFreeSpaceToo() throws IOException {
        Path data = Files.createDirectories(temp.resolve("data"));
        inodes("1000 10");
        CheckResult result = check(data, "rw", 5);
        assertEquals(HealthAction.FREE_SPACE, result.action(), result.evidence().toString());
        assertEquals(List.of(data + " inodes 99% used"), result.faults());
        assertEquals(List.of("-f -c %c %d -- " + data), tools.calls("stat"));
    }

    @Test
    void enoughInodesOrNoInodeLimitPass() throws IOException {
        Path data = Files.createDirectories(temp.resolve("data"));
        inodes("1000 900");
        assertEquals(HealthStatus.PASSED, check(data, "rw", 5).status());
        inodes("0 0");
        CheckResult unlimited = check(data, "rw", 5);
        assertEquals(HealthStatus.PASSED, unlimited.status());
        assertTrue(
                unlimited.evidence().contains(data + ": no inode limit"),
                unlimited.evidence().toString());
    }

    @Test
    void anUnreadableInodeCountIsEvidenceNotAFailure() throws IOException {
        Path data = Files.createDirectories(temp.resolve("data"));
        inodes("garbage");
        CheckResult result = check(data, "rw", 5);
        assertEquals(HealthStatus.PASSED, result.status());
        assertTrue(
                result.evidence().stream().anyMatch(e -> e.startsWith("free inodes of " + data + " not read")),
                result.evidence().toString());
    }

    @Test
    void statCountsAreReadStrictly() {
        assertEquals(2, DiskCheck.parseCounts("1000 10\n").orElseThrow().length);
        assertTrue(DiskCheck.parseCounts("10 1000").isEmpty(), "more free than there are");
        assertTrue(DiskCheck.parseCounts("1000").isEmpty());
        assertTrue(DiskCheck.parseCounts("-1 0").isEmpty());
    }

    @Test
    void theWriteProbeIsANewFileOnlyItsOwnerMayUseUnderAFreshName() throws IOException {
        Path first = DiskCheck.createProbe(temp);
        Path second = DiskCheck.createProbe(temp);
        assertTrue(first.getFileName().toString().startsWith(".autoresume-health-"), first.toString());
        assertTrue(first.getFileName().toString().endsWith(".tmp"), first.toString());
        assertTrue(!first.equals(second), first + " twice");
        assertEquals(0, Files.size(first));
        assertEquals(
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"),
                Files.getPosixFilePermissions(first));
    }

    @Test
    void theWriteProbeNeverFollowsALinkLeftUnderItsNameAndDrawsAnother() throws IOException {
        Path target = Files.writeString(temp.resolve("target"), "keep\n");
        Path dir = Files.createDirectories(temp.resolve("dir"));
        Path link = Files.createSymbolicLink(dir.resolve(".autoresume-health-7.tmp"), target);
        java.util.Iterator<Long> names = List.of(7L, 7L, 8L).iterator();
        Path probe = DiskCheck.createProbe(dir, names::next);
        assertEquals(dir.resolve(".autoresume-health-8.tmp"), probe);
        assertTrue(Files.isSymbolicLink(link));
        assertEquals("keep\n", Files.readString(target));
    }

    @Test
    void theWriteProbeGivesUpWhenEveryNameItDrawsIsTaken() throws IOException {
        Path dir = Files.createDirectories(temp.resolve("full"));
        Files.createFile(dir.resolve(".autoresume-health-1.tmp"));
        org.junit.jupiter.api.Assertions.assertThrows(
                java.nio.file.FileAlreadyExistsException.class, () -> DiskCheck.createProbe(dir, () -> 1L));
    }
}
