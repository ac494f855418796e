package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * {@code autoresume supervise} around real srun steps inside sbatch jobs run as the test user:
 * output, exit status and signals must be what plain srun gives, and ends chosen by a person or
 * by Slurm are never re-run.
 */
class SupervisorIT {

    private static LocalCluster cluster;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
    }

    private String runJob(String body, String... sbatchOptions) {
        String script = "#!/bin/bash\nAR='" + cluster.launcher() + "'\n" + body;
        List<String> options = new java.util.ArrayList<>(List.of(sbatchOptions));
        String jobId = cluster.submit(script, options);
        Job job = cluster.waitForJobEnd(jobId, Duration.ofSeconds(120));
        assertEquals(JobState.COMPLETED, job.state(), () -> cluster.jobOutput(jobId));
        return jobId;
    }

    private String file(String jobId, String suffix) {
        try {
            return Files.readString(cluster.jobsDir().resolve(jobId + suffix));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void outputIsByteForByteWhatPlainSrunWrites() {
        // Several MB on stdout, some on stderr, from one task (deterministic) and from two (sorted).
        // The two-task part stays small: on this one-host cluster srun itself, supervised or not,
        // now and then aborts a step that floods output with "io error with slurmstepd".
        String writer = "seq 1 700000; seq 1 20000 >&2; head -c 300000 /dev/zero | tr '\\\\0' 'x'";
        String jobId = runJob("""
                set -u
                srun -N1 bash -c "%1$s" > $SLURM_JOB_ID.plain.out 2> $SLURM_JOB_ID.plain.err
                "$AR" supervise -- srun -N1 bash -c "%1$s" > $SLURM_JOB_ID.sup.out 2> $SLURM_JOB_ID.sup.err
                srun -N2 -l seq 1 5000 | sort > $SLURM_JOB_ID.plain2.out
                "$AR" supervise -- srun -N2 -l seq 1 5000 | sort > $SLURM_JOB_ID.sup2.out
                """.formatted(writer), "-N2");
        String plain = file(jobId, ".plain.out");
        assertTrue(plain.length() > 4_000_000, "expected several MB, got " + plain.length());
        assertEquals(plain, file(jobId, ".sup.out"));
        assertEquals(file(jobId, ".plain.err"), withoutSupervisorLines(file(jobId, ".sup.err")));
        assertEquals(file(jobId, ".plain2.out"), file(jobId, ".sup2.out"));
    }

    @Test
    void exitStatusesAreSrunsOwn() {
        String cases = "exit 0|exit 3|kill -KILL $$|kill -TERM $$|kill -SEGV $$";
        String jobId = runJob("""
                IFS='|' read -ra cases <<< '%s'
                for c in "${cases[@]}"; do
                  srun -N1 bash -c "$c" 2>/dev/null; plain=$?
                  "$AR" supervise -- srun -N1 bash -c "$c" 2>/dev/null; sup=$?
                  echo "CASE $c PLAIN $plain SUP $sup"
                done
                """.formatted(cases), "-N1");
        List<String> lines = cluster.jobOutput(jobId)
                .lines()
                .filter(l -> l.startsWith("CASE "))
                .toList();
        assertEquals(5, lines.size(), cluster.jobOutput(jobId));
        for (String line : lines) {
            String[] parts = line.split(" PLAIN | SUP ");
            assertEquals(parts[1], parts[2], line);
        }
        assertTrue(lines.get(0).endsWith("PLAIN 0 SUP 0"));
        assertTrue(lines.get(1).endsWith("PLAIN 3 SUP 3"));
    }

    /** The supervisor itself killed by a signal number N is not the same as srun's: srun's death by signal gives 128+N. */
    @Test
    void srunKilledBySignalGives128PlusN() {
        String jobId = runJob("""
                "$AR" supervise -- bash -c 'kill -KILL $$'
                echo "SUP $?"
                """, "-N1");
        assertTrue(cluster.jobOutput(jobId).contains("SUP 137"), cluster.jobOutput(jobId));
    }

    @Test
    void signalsReachTheTasksThroughTheSupervisorAndScancel() throws Exception {
        String jobId = cluster.submit("""
                #!/bin/bash
                # Job control on: a background job of a non-interactive shell would start with
                # SIGINT ignored; with the plugin the supervisor runs in srun's place in the foreground.
                set -m
                '%s' supervise -- srun -N1 bash -c '
                  trap "echo TASK-GOT-USR1" USR1
                  trap "echo TASK-GOT-USR2" USR2
                  trap "echo TASK-GOT-HUP" HUP
                  trap "echo TASK-GOT-INT; exit 130" INT
                  echo ready > "$SLURM_JOB_ID.ready"
                  for i in $(seq 1 600); do sleep 0.1; done
                ' &
                echo $! > "$SLURM_JOB_ID.pid"
                wait $!
                echo "SUP $?"
                """.formatted(cluster.launcher()), List.of("-N1"));
        Path ready = cluster.jobsDir().resolve(jobId + ".ready");
        Wait.until(
                "the task to install its traps",
                Duration.ofSeconds(60),
                () -> Files.exists(ready) ? Optional.of(true) : Optional.empty());
        String pid = Files.readString(cluster.jobsDir().resolve(jobId + ".pid")).strip();
        assertEquals(0, cluster.run(List.of("kill", "-USR1", pid)).exitCode());
        waitForOutput(jobId, "TASK-GOT-USR1");
        assertEquals(0, cluster.run(List.of("kill", "-USR2", pid)).exitCode());
        waitForOutput(jobId, "TASK-GOT-USR2");
        assertEquals(
                0,
                cluster.runAsTestUser(List.of("scancel", "--signal=HUP", jobId + ".0"))
                        .exitCode());
        waitForOutput(jobId, "TASK-GOT-HUP");
        assertEquals(
                0,
                cluster.runAsTestUser(List.of("scancel", "--signal=USR1", jobId + ".0"))
                        .exitCode());
        Wait.until(
                "a second USR1, sent by scancel",
                Duration.ofSeconds(30),
                () -> cluster.jobOutput(jobId)
                                        .lines()
                                        .filter(l -> l.equals("TASK-GOT-USR1"))
                                        .count()
                                == 2
                        ? Optional.of(true)
                        : Optional.empty());
        // Two SIGINTs within a second: srun's own rule, kept through the supervisor, ends the step.
        // From 26.05 srun compares whole seconds of the wall clock (the second interrupt aborts
        // only within the same second), so the pair starts just after a second begins: within
        // a second by every release's rule.
        startOfNextSecond();
        assertEquals(
                0,
                cluster.run(List.of("bash", "-c", "kill -INT \"$1\" && sleep 0.2 && kill -INT \"$1\"", "kill", pid))
                        .exitCode());
        Job job = cluster.waitForJobEnd(jobId, Duration.ofSeconds(60));
        String output = cluster.jobOutput(jobId);
        assertEquals(JobState.COMPLETED, job.state(), output);
        assertTrue(output.contains("TASK-GOT-INT"), "srun did not pass SIGINT on to the task: " + output);
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(List.of("1:launch", "1:attempt-ended"), timeline.attemptsAndKinds(), timeline.toString());
        assertEquals("INTERRUPTED", timeline.only(Timeline.Kind.ATTEMPT_ENDED).outcome(), timeline.toString());
        assertFalse(output.contains("SUP 0"), output);
    }

    /** Waits for the wall clock's next whole second (a moment, not a condition to poll for). */
    private static void startOfNextSecond() throws InterruptedException {
        Thread.sleep(1000 - Instant.now().getNano() / 1_000_000);
    }

    @Test
    void aCancelledStepIsNotReRunEvenWithRetriesLeft() throws Exception {
        String jobId = cluster.submit("""
                #!/bin/bash
                export AUTORESUME_MAX_APP_RETRIES=3
                '%s' supervise -- srun -N1 bash -c 'echo "attempt $AUTO_RESUME_ATTEMPT"; echo up > "$SLURM_JOB_ID.ready"; sleep 300'
                echo "SUP $?"
                """.formatted(cluster.launcher()), List.of("-N1"));
        Path ready = cluster.jobsDir().resolve(jobId + ".ready");
        Wait.until(
                "the step to start",
                Duration.ofSeconds(60),
                () -> Files.exists(ready) ? Optional.of(true) : Optional.empty());
        assertEquals(0, cluster.runAsTestUser(List.of("scancel", jobId + ".0")).exitCode());
        cluster.waitForJobEnd(jobId, Duration.ofSeconds(60));
        String output = cluster.jobOutput(jobId);
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(List.of("1:launch", "1:attempt-ended"), timeline.attemptsAndKinds(), timeline.toString());
        assertEquals("CANCELLED", timeline.only(Timeline.Kind.ATTEMPT_ENDED).outcome(), timeline.toString());
        assertEquals(1, output.lines().filter(l -> l.startsWith("attempt ")).count(), output);
        assertFalse(output.contains("SUP 0"), output);
    }

    @Test
    void anApplicationFailureIsReRunInPlaceWithinTheBudget() {
        String jobId = runJob("""
                AUTORESUME_MAX_APP_RETRIES=1 "$AR" supervise -- srun -N1 bash -c 'echo "attempt $AUTO_RESUME_ATTEMPT"; exit 4'
                echo "SUP $?"
                """, "-N1");
        String output = cluster.jobOutput(jobId);
        assertEquals(
                List.of("attempt 1", "attempt 2"),
                output.lines().filter(l -> l.startsWith("attempt ")).toList());
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(
                List.of(
                        "1:launch",
                        "1:attempt-ended",
                        "1:decision",
                        "2:launch",
                        "2:attempt-ended",
                        "2:decision",
                        "2:give-up"),
                timeline.attemptsAndKinds(),
                timeline.toString());
        assertEquals(
                List.of("APP_FAILURE", "APP_FAILURE"),
                timeline.all(Timeline.Kind.ATTEMPT_ENDED).stream()
                        .map(Timeline.Event::outcome)
                        .toList(),
                timeline.toString());
        assertEquals(
                List.of("RERUN_IN_PLACE", "GIVE_UP"),
                timeline.all(Timeline.Kind.DECISION).stream()
                        .map(Timeline.Event::level)
                        .toList(),
                timeline.toString());
        assertTrue(output.contains("SUP 4"), output);
    }

    private void waitForOutput(String jobId, String text) {
        Wait.until(
                "\"" + text + "\" in job " + jobId + "'s output",
                Duration.ofSeconds(30),
                () -> cluster.jobOutput(jobId).contains(text) ? Optional.of(true) : Optional.empty());
    }

    private static String withoutSupervisorLines(String stderr) {
        StringBuilder kept = new StringBuilder();
        for (String line : stderr.split("(?<=\n)")) {
            if (!line.startsWith("[auto-resume] ")) {
                kept.append(line);
            }
        }
        return kept.toString();
    }
}
