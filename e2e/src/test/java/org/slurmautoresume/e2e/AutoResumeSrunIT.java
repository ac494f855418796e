package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * The whole hand-off as a user meets it: {@code srun --auto-resume=1} with the real plugin and
 * the real Java supervisor, in batch jobs run as the test user.
 */
class AutoResumeSrunIT {

    private static final String PREFIX = "80-autoresume-srun-it-";
    private static LocalCluster cluster;
    private static Plugstack plugstack;

    @BeforeAll
    static void installPlugin() {
        cluster = LocalCluster.get();
        plugstack = Plugstack.install(cluster, PREFIX, List.of("auto_resume.so", "probe.so"));
        plugstack.writeSnippet("probe", "optional " + plugstack.sharedObject("probe.so"));
        plugstack.useAutoResume(cluster.launcher());
    }

    @AfterAll
    static void removePlugin() {
        if (plugstack != null) {
            plugstack.removeAll();
        }
    }

    private String run(String body, String... options) {
        String jobId = cluster.submit("#!/bin/bash\n" + body, List.of(options));
        Job job = cluster.waitForJobEnd(jobId, Duration.ofSeconds(120));
        assertEquals(JobState.COMPLETED, job.state(), () -> cluster.jobOutput(jobId));
        return jobId;
    }

    private String file(String name) {
        try {
            return Files.readString(cluster.jobsDir().resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aSupervisedStepWritesWhatAPlainOneWritesAndKeepsItsExitStatus() {
        String jobId = run("""
                srun -N1 seq 1 600000 > $SLURM_JOB_ID.plain.out
                srun --auto-resume=1 -N1 seq 1 600000 > $SLURM_JOB_ID.sup.out 2> $SLURM_JOB_ID.sup.err
                srun --auto-resume=1 -N2 bash -c 'exit 3'; echo "EXIT3 $?"
                srun --auto-resume=1 -N1 true; echo "EXIT0 $?"
                """, "-N2", "--exclusive");
        String plain = file(jobId + ".plain.out");
        assertTrue(plain.length() > 4_000_000);
        assertEquals(plain, file(jobId + ".sup.out"));
        String err = file(jobId + ".sup.err");
        // The plugin's task_init line is the feature (the per-task line HyperPod users know).
        assertTrue(err.contains("task_init"), "the step did not run supervised: " + err);
        String output = cluster.jobOutput(jobId);
        assertTrue(output.contains("EXIT3 3"), output);
        assertTrue(output.contains("EXIT0 0"), output);
        // Three supervised sruns, one timeline: the failing one is seen as the application's.
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(
                List.of("SUCCEEDED 0", "APP_FAILURE 3", "SUCCEEDED 0"),
                timeline.all(Timeline.Kind.ATTEMPT_ENDED).stream()
                        .map(e -> e.outcome() + " " + e.status())
                        .toList(),
                timeline.toString());
    }

    /**
     * Fail-open: the node's agent is down (killed, its socket left behind), so nothing can mark a
     * faulty node. The supervised steps run all the same, and the user is told once per job, in
     * the recovery-paths line; the timeline records that no agent answered at each srun's start.
     */
    @Test
    void withTheAgentDownStepsStillRunAndTheUserIsToldOnce() throws IOException {
        Path stale = plugstack.installDir().resolve("killed-agent.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(stale));
        } // closed without unlinking: the socket a killed agent leaves, which refuses connections
        Files.setPosixFilePermissions(stale, PosixFilePermissions.fromString("rw-rw-rw-"));
        try {
            String jobId = run("""
                    export AUTORESUME_AGENT_SOCKET=%s
                    srun --auto-resume=1 -N2 bash -c 'echo "attempt=$AUTO_RESUME_ATTEMPT"'
                    srun --auto-resume=1 -N1 true; echo "EXIT0 $?"
                    """.formatted(stale), "-N2", "--exclusive");
            String output = cluster.jobOutput(jobId);
            assertEquals(2, output.lines().filter(l -> l.endsWith("attempt=1")).count(), output);
            assertTrue(output.contains("EXIT0 0"), output);
            Timeline timeline = Timeline.of(cluster, jobId);
            assertEquals(
                    List.of("absent", "absent"),
                    timeline.all(Timeline.Kind.PATHS).stream()
                            .map(e -> e.detail("agent"))
                            .toList(),
                    timeline.toString());
            List<String> told =
                    output.lines().filter(l -> l.contains(stale.toString())).toList();
            assertEquals(1, told.size(), output);
            assertTrue(told.get(0).contains(": recovery paths: "), output);
        } finally {
            Files.deleteIfExists(stale);
        }
    }

    /** The preflight's advice is printed once per job, not once per srun. */
    @Test
    void aSharedAllocationGetsItsAdviceOncePerJob() {
        String jobId = run("""
                srun --auto-resume=1 -N1 true
                srun --auto-resume=1 -N1 true
                """, "-N1");
        String output = cluster.jobOutput(jobId);
        assertEquals(2, output.lines().filter(l -> l.contains("task_init")).count(), output);
        // The wording is the feature: advice a user reads and acts on.
        assertEquals(
                1,
                output.lines()
                        .filter(l -> l.contains("preflight: exclusive allocation"))
                        .count(),
                output);
    }

    /** Another plugin's option and srun's own flags reach the step through the Java supervisor unchanged. */
    @Test
    void otherPluginsOptionsAndSrunFlagsSurviveTheSupervisor() {
        String jobId = run("""
                srun --auto-resume=1 --cpus-per-task=2 --probe-value='a b;$x "q"' -N2 -n2 --ntasks-per-node=1 -l \\
                    bash -c 'echo "probe=[$PROBE_VALUE] cpus=$SLURM_CPUS_PER_TASK"'
                """, "-N2", "--exclusive");
        String output = cluster.jobOutput(jobId);
        assertEquals(
                2,
                output.lines()
                        .filter(l -> l.endsWith("probe=[a b;$x \"q\"] cpus=2"))
                        .count(),
                output);
        assertEquals(2, output.lines().filter(l -> l.contains("task_init")).count(), output);
    }

    @Test
    void srunOutsideAnyAllocationIsSupervisedToo() {
        var result = cluster.runAsTestUser(List.of(
                "srun", "--auto-resume=1", "-N1", "bash", "-c", "echo \"outside attempt=$AUTO_RESUME_ATTEMPT\""));
        assertEquals(0, result.exitCode(), result.stderr());
        assertTrue(result.stdout().contains("outside attempt=1"), result.stdout());
        // The wording is the feature: the user is told what auto-resume cannot do here (there is no
        // job id when the supervisor starts, so no timeline either).
        assertTrue(result.stderr().contains("outside a job allocation"), result.stderr());
        assertTrue(result.stderr().contains("task_init"), result.stderr());
    }

    /** The plugin has already replaced srun when the launcher finds no Java: the step must still run. */
    @Test
    void withoutJavaTheStepRunsUnsupervisedWithOneWarning() {
        String jobId = run("""
                AUTORESUME_JAVA=/nonexistent/java srun --auto-resume=1 -N1 bash -c 'echo "ran, exit 0"'
                echo "EXIT $?"
                """, "-N1");
        String output = cluster.jobOutput(jobId);
        assertTrue(output.contains("ran, exit 0") && output.contains("EXIT 0"), output);
        // The wording is the feature: the plugin's one clear line when the Java side is missing.
        assertEquals(
                1,
                output.lines()
                        .filter(l -> l.contains("running this step without auto-resume"))
                        .count(),
                output);
    }

    @Test
    void sbatchAutoResumeSupervisesTheScriptsSrunsAndExportsTheAttempt() {
        String jobId = run("""
                srun -N2 -l bash -c 'echo "attempt=$AUTO_RESUME_ATTEMPT"'
                """, "-N2", "--exclusive", "--auto-resume=1");
        String output = cluster.jobOutput(jobId);
        assertEquals(2, output.lines().filter(l -> l.endsWith("attempt=1")).count(), output);
        assertEquals(2, output.lines().filter(l -> l.contains("task_init")).count(), output);
        // The cluster keeps accounting and the job is exclusive: no advice about those. What the
        // preflight does say, once, is that Slurm refuses to grow this job (it holds the nodes'
        // GPUs, the cluster runs PrologFlags=Contain), and what the job has instead.
        List<String> advice =
                output.lines().filter(l -> l.contains("preflight")).toList();
        assertEquals(
                List.of(),
                advice.stream()
                        .filter(l -> !l.contains("preflight: GRES: ") && !l.contains("preflight: PrologFlags: "))
                        .toList(),
                "no advice beyond job expansion: " + output);
        assertEquals(
                1, output.lines().filter(l -> l.contains(": recovery paths: ")).count(), output);
    }
}
