package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * Another user plants files where a job's per-job state would go, before the job starts (root
 * plays that user, uid 65534, in the setup). The test user's {@code srun --auto-resume=1} step
 * still runs and completes, nothing planted is written, read into the job or moved, and the
 * job's own timeline is where it belongs (SECURITY.md, "Planted per-job files").
 */
class PlantedStateIT {

    private static final String PREFIX = "80-planted-state-it-";
    private static final int OTHER_UID = 65534;
    private static final String STEP =
            "srun --auto-resume=1 -N1 bash -c 'echo ran-$SLURM_JOB_ID' > $SLURM_JOB_ID.step.out\n";
    private static LocalCluster cluster;
    private static Plugstack plugstack;
    private static int testUid;
    private final List<Path> planted = new ArrayList<>();

    @BeforeAll
    static void installPlugin() {
        cluster = LocalCluster.get();
        plugstack = Plugstack.install(cluster, PREFIX, List.of("auto_resume.so"));
        plugstack.useAutoResume(cluster.launcher());
        testUid = Integer.parseInt(
                cluster.run(List.of("id", "-u", cluster.testUser())).stdout().strip());
    }

    @AfterAll
    static void removePlugin() {
        if (plugstack != null) {
            plugstack.removeAll();
        }
    }

    @AfterEach
    void removePlanted() throws IOException {
        for (Path path : planted) {
            cluster.run(List.of("rm", "-rf", "--", path.toString()));
        }
    }

    /** Shared, guessable names in /tmp for the job's id, planted while it is held: never used. */
    @Test
    void filesPlantedUnderTheSharedNamesAreLeftAloneAndTheJobKeepsItsOwn() throws IOException {
        String jobId = cluster.submit("#!/bin/bash\n" + STEP, List.of("-N1", "--hold"));
        String user = cluster.testUser();
        // A file of the victim's own that the attacker wants the victim's job to overwrite.
        Path victim = track(cluster.jobsDir().resolve("victim-" + jobId));
        Files.writeString(victim, "precious\n");
        Files.setAttribute(victim, "unix:uid", testUid);
        Path link = track(Path.of("/tmp/autoresume-events-" + user + "-" + jobId + ".jsonl"));
        Files.createSymbolicLink(link, victim);
        Files.setAttribute(link, "unix:uid", OTHER_UID, LinkOption.NOFOLLOW_LINKS);
        // A restart history that spends the job's whole budget before it starts.
        String forged = "2020-01-01T00:00:00Z FULL_JOB\n".repeat(50);
        Path history = track(Path.of("/tmp/autoresume-restarts-" + user + "-" + jobId));
        Files.writeString(history, forged);
        Files.setAttribute(history, "unix:uid", OTHER_UID);
        Files.setPosixFilePermissions(history, PosixFilePermissions.fromString("rw-r--r--"));

        cluster.run(List.of("scontrol", "release", jobId));
        completes(jobId);

        assertEquals("precious\n", Files.readString(victim));
        assertEquals(victim, Files.readSymbolicLink(link));
        assertEquals(forged, Files.readString(history));
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(
                List.of("SUCCEEDED 0"),
                timeline.all(Timeline.Kind.ATTEMPT_ENDED).stream()
                        .map(e -> e.outcome() + " " + e.status())
                        .toList(),
                timeline.toString());
    }

    /**
     * The new per-user name made first by someone else, in a shared TMPDIR: refused, left alone,
     * and the step runs. With a runtime directory of the user's own the timeline is kept there.
     */
    @Test
    void aStateDirectoryPlantedByAnotherUserIsRefusedAndTheStepRuns() throws IOException {
        Path shared = track(cluster.jobsDir()
                .resolve("shared-tmp-" + ProcessHandle.current().pid()));
        Files.createDirectory(shared);
        cluster.run(List.of("chmod", "1777", shared.toString()));
        Path taken = shared.resolve("autoresume-" + testUid);
        Files.createDirectory(taken);
        Files.setPosixFilePermissions(taken, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(taken, "unix:uid", OTHER_UID);
        Path runtime = track(
                cluster.jobsDir().resolve("runtime-" + ProcessHandle.current().pid()));
        Files.createDirectory(runtime);
        Files.setPosixFilePermissions(runtime, PosixFilePermissions.fromString("rwx------"));
        Files.setAttribute(runtime, "unix:uid", testUid);

        String withoutRuntime = cluster.submit(
                "#!/bin/bash\nunset XDG_RUNTIME_DIR\nexport TMPDIR=" + shared + "\n" + STEP, List.of("-N1"));
        completes(withoutRuntime);
        String withRuntime = cluster.submit(
                "#!/bin/bash\nexport XDG_RUNTIME_DIR=" + runtime + " TMPDIR=" + shared + "\n" + STEP, List.of("-N1"));
        completes(withRuntime);

        assertEquals(List.of(), entries(taken), "nothing written into the planted directory");
        assertEquals(OTHER_UID, (Integer) Files.getAttribute(taken, "unix:uid"));
        assertEquals("rwxrwxrwx", PosixFilePermissions.toString(Files.getPosixFilePermissions(taken)));
        Timeline timeline = Timeline.of(cluster, withRuntime, runtime.resolve("autoresume"));
        assertEquals(
                List.of("SUCCEEDED 0"),
                timeline.all(Timeline.Kind.ATTEMPT_ENDED).stream()
                        .map(e -> e.outcome() + " " + e.status())
                        .toList(),
                timeline.toString());
        assertEquals(
                "rwx------",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(runtime.resolve("autoresume"))));
    }

    private void completes(String jobId) {
        Job job = cluster.waitForJobEnd(jobId, Duration.ofSeconds(120));
        assertEquals(JobState.COMPLETED, job.state(), () -> cluster.jobOutput(jobId));
        try {
            assertEquals(
                    "ran-" + jobId,
                    Files.readString(cluster.jobsDir().resolve(jobId + ".step.out"))
                            .strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Remembered for removal; anything left there by an earlier run (job ids come round again) goes first. */
    private Path track(Path path) {
        cluster.run(List.of("rm", "-rf", "--", path.toString()));
        planted.add(path);
        return path;
    }

    private static List<Path> entries(Path folder) throws IOException {
        try (Stream<Path> list = Files.list(folder)) {
            return list.toList();
        }
    }
}
