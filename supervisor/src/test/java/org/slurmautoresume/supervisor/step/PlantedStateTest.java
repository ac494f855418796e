package org.slurmautoresume.supervisor.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.supervisor.step.ScriptedSrun.Scripted;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobStateDirectory;
import org.slurmautoresume.supervisor.step.record.RestartHistoryFile;

/**
 * Per-job files another user got to first: the step runs on, nothing is written through what
 * was planted, and the job's own timeline stays where it belongs.
 */
class PlantedStateTest {

    @TempDir
    Path dir;

    private SupervisedRun job;

    @BeforeEach
    void job() throws IOException {
        job = new SupervisedRun(dir, new FakeSlurm(List.of("node1", "node2"), List.of("node1", "node2")));
    }

    @AfterEach
    void stopAgent() throws IOException {
        job.close();
    }

    @Test
    void aLinkInPlaceOfTheStateDirectoryIsRefusedAndTheStepRuns() throws Exception {
        Path elsewhere = Files.createDirectory(dir.resolve("attacker-chosen"));
        Files.createSymbolicLink(job.stateDir(), elsewhere);
        ScriptedSrun srun = new ScriptedSrun(Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(1, srun.starts().size());
        assertEquals(elsewhere, Files.readSymbolicLink(job.stateDir()));
        assertEquals(List.of(), entries(elsewhere), "nothing written through the link");
    }

    @Test
    void aStateDirectoryOthersCanEnterIsRefusedAndLeftAsItWas() throws Exception {
        Files.createDirectory(
                job.stateDir(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
        Files.setPosixFilePermissions(job.stateDir(), PosixFilePermissions.fromString("rwxrwxrwx"));
        ScriptedSrun srun = new ScriptedSrun(Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(1, srun.starts().size());
        assertEquals(List.of(), entries(job.stateDir()));
        assertEquals("rwxrwxrwx", PosixFilePermissions.toString(Files.getPosixFilePermissions(job.stateDir())));
    }

    @Test
    void filesPlantedUnderTheOldSharedNamesAreNeitherReadNorWritten() throws Exception {
        Path victim = Files.writeString(dir.resolve("victims-file"), "precious\n");
        Path oldEvents =
                Files.createSymbolicLink(dir.resolve("autoresume-events-tester-" + FakeSlurm.JOB + ".jsonl"), victim);
        ScriptedSrun srun = new ScriptedSrun(Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals("precious\n", Files.readString(victim));
        assertEquals(victim, Files.readSymbolicLink(oldEvents));
        assertTrue(
                job.timelineWords().contains("succeeded"), job.timelineWords().toString());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(job.stateDir())));
    }

    @Test
    void theRuntimeDirectoryIsUsedOnlyWhenItIsTheUsersOwn() throws IOException {
        int uid = JobStateDirectory.uid();
        Path runtime = Files.createDirectory(
                dir.resolve("run-user"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        assertEquals(
                runtime.resolve("autoresume"),
                JobStateDirectory.locate(Map.of("XDG_RUNTIME_DIR", runtime.toString(), "TMPDIR", dir.toString()), uid));
        assertEquals(
                dir.resolve("autoresume-" + (uid + 1)),
                JobStateDirectory.locate(
                        Map.of("XDG_RUNTIME_DIR", runtime.toString(), "TMPDIR", dir.toString()), uid + 1),
                "another's");
        assertEquals(
                dir.resolve("autoresume-" + uid),
                JobStateDirectory.locate(
                        Map.of("XDG_RUNTIME_DIR", dir.resolve("missing").toString(), "TMPDIR", dir.toString()), uid));
        Files.setPosixFilePermissions(runtime, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertEquals(
                dir.resolve("autoresume-" + uid),
                JobStateDirectory.locate(Map.of("XDG_RUNTIME_DIR", runtime.toString(), "TMPDIR", dir.toString()), uid));
        assertFalse(Files.exists(runtime.resolve("autoresume")), "locating makes nothing");
    }

    @Test
    void aUserNameCannotLeadAFileOutOfTheStateDirectory() {
        Path state = Path.of("/tmp/autoresume-1000");
        for (String user : new String[] {"../../etc/x", "a/b", "..", ".", ""}) {
            Path file = EventHistory.fileFor(state, user, "7");
            assertEquals(state, file.getParent(), user);
            assertEquals(state, new RestartHistoryFile(state, user, "7").path().getParent(), user);
        }
        assertEquals("alice.b-1_x", JobStateDirectory.nameSafe("alice.b-1_x"));
    }

    private static List<Path> entries(Path folder) throws IOException {
        try (Stream<Path> list = Files.list(folder)) {
            return list.toList();
        }
    }
}
