package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * The SPANK plugin {@code auto_resume.so} in real srun, sbatch and salloc runs by the test user.
 * It is installed into the cluster's plugstack.conf.d for the duration of this class only,
 * beside {@code probe.so} (an option of another plugin, {@code --probe-value}, that must reach
 * the tasks unchanged) and with a fake supervisor that writes down the argv it was handed and
 * then runs that srun as the real one does, so that these tests do not depend on the Java side.
 */
class SpankPluginIT {

    private static final String SNIPPET_PREFIX = "90-spank-plugin-it-";
    private static final Pattern TASK_INIT =
            Pattern.compile("\\[auto-resume] JobID=(\\d+) StepID=(\\S+) TaskID=(\\d+) task_init");
    private static final Pattern LABELLED = Pattern.compile("^\\s*(\\d+): (.*)$");

    private static LocalCluster cluster;
    private static Plugstack plugstack;
    private static Path records;
    private static Path fakeSupervisor;

    @BeforeAll
    static void installPlugins() throws IOException {
        cluster = LocalCluster.get();
        plugstack = Plugstack.install(cluster, SNIPPET_PREFIX, List.of("auto_resume.so", "probe.so"));
        records = plugstack.installDir().resolve("records");
        Files.createDirectories(records);
        Files.setPosixFilePermissions(records, PosixFilePermissions.fromString("rwxr-xr-x"));
        if ("root".equals(System.getProperty("user.name"))) {
            // The fake supervisor writes its records as the test user.
            Files.setOwner(
                    records,
                    records.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(cluster.testUser()));
        }
        fakeSupervisor = plugstack.installDir().resolve("fake-supervisor");
        Files.writeString(fakeSupervisor, FAKE_SUPERVISOR.replace("@RECORDS@", records.toString()));
        Files.setPosixFilePermissions(fakeSupervisor, PosixFilePermissions.fromString("rwxr-xr-x"));

        plugstack.writeSnippet("probe", "optional " + plugstack.sharedObject("probe.so"));
        useSupervisor(fakeSupervisor);
    }

    @AfterAll
    static void removePlugins() {
        if (plugstack != null) {
            plugstack.removeAll();
        }
    }

    @BeforeEach
    void forgetEarlierCalls() throws IOException {
        try (Stream<Path> files = Files.list(records)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
    }

    @Test
    void theWholeArgvAndOtherPluginsOptionsReachTheStep() {
        List<String> srun = List.of(
                "srun",
                "--auto-resume=1",
                "--cpus-per-task=2",
                "--probe-value=a b;$x",
                "-N2",
                "printenv",
                "PROBE_VALUE");
        CommandResult result = run(Map.of(), srun);

        assertEquals(0, result.exitCode(), result::stderr);
        assertEquals(List.of("a b;$x", "a b;$x"), result.stdout().lines().toList());
        List<String> expected = new ArrayList<>(List.of("supervise", "--"));
        expected.addAll(srun);
        assertEquals(List.of(expected), supervisorCalls());
        assertEquals(2, taskInitLines(result.stderr()).size(), result::stderr);
    }

    @Test
    void eachTaskPrintsOneTaskInitLineWithItsIdsAndSeesTheAttempt() {
        List<String> srun = List.of(
                "srun",
                "-l",
                "--auto-resume=1",
                "-N2",
                "-n3",
                "printenv",
                "SLURM_JOB_ID",
                "SLURM_STEP_ID",
                "AUTO_RESUME_ATTEMPT");
        checkTaskInit(run(Map.of(), srun), "1");
        checkTaskInit(run(Map.of("FAKE_SUPERVISOR_ATTEMPT", "7"), srun), "7");
    }

    private static void checkTaskInit(CommandResult result, String attempt) {
        assertEquals(0, result.exitCode(), result::stderr);
        Map<Integer, List<String>> printed = byTask(result.stdout());
        assertEquals(3, printed.size(), result::stdout);
        Map<Integer, List<String>> stderr = byTask(result.stderr());
        for (int task = 0; task < 3; task++) {
            List<String> values = printed.get(task);
            assertEquals(attempt, values.get(2), result::stdout);
            List<Matcher> lines = taskInitLines(String.join("\n", stderr.getOrDefault(task, List.of())));
            assertEquals(1, lines.size(), "task " + task + ":\n" + result.stderr());
            Matcher line = lines.get(0);
            assertEquals(values.get(0), line.group(1), "JobID of task " + task);
            assertEquals(values.get(1), line.group(2), "StepID of task " + task);
            assertEquals(String.valueOf(task), line.group(3));
        }
    }

    @Test
    void srunsExitStatusComesBackThroughTheSupervisor() {
        assertEquals(
                0, run(Map.of(), List.of("srun", "--auto-resume=1", "true")).exitCode());
        assertEquals(
                3,
                run(Map.of(), List.of("srun", "--auto-resume=1", "bash", "-c", "exit 3"))
                        .exitCode());
        assertEquals(2, supervisorCalls().size());
    }

    @Test
    void aPlainSrunNeverCallsTheSupervisor() {
        assertEquals(0, run(Map.of(), List.of("srun", "true")).exitCode());
        assertEquals(
                0, run(Map.of(), List.of("srun", "--auto-resume=0", "true")).exitCode());
        assertEquals(
                0,
                run(Map.of("SLURM_AUTO_RESUME", "1"), List.of("srun", "--auto-resume=0", "true"))
                        .exitCode());
        assertEquals(List.of(), supervisorCalls());
        // The environment default alone does switch it on.
        assertEquals(
                0,
                run(Map.of("SLURM_AUTO_RESUME", "1"), List.of("srun", "true")).exitCode());
        assertEquals(1, supervisorCalls().size());
    }

    @Test
    void aMissingSupervisorLeavesSrunRunningWithOneWarning() throws IOException {
        Path missing = plugstack.installDir().resolve("no-such-supervisor");
        useSupervisor(missing);
        try {
            CommandResult result = run(Map.of(), List.of("srun", "--auto-resume=1", "true"));
            assertEquals(0, result.exitCode(), result::stderr);
            // The wording is the feature: the plugin's one clear line when the supervisor is missing.
            List<String> ours = result.stderr()
                    .lines()
                    .filter(l -> l.contains("auto-resume"))
                    .toList();
            assertEquals(
                    List.of("auto-resume: cannot start the supervisor " + missing
                            + ": No such file or directory; running this step without auto-resume"),
                    ours);
        } finally {
            useSupervisor(fakeSupervisor);
        }
        assertEquals(List.of(), supervisorCalls());
    }

    @Test
    void anSrunInsideASupervisedStepIsNotSupervisedAgain() {
        CommandResult result = run(
                Map.of(),
                List.of(
                        "srun",
                        "--auto-resume=1",
                        "-N1",
                        "srun",
                        "--overlap",
                        "--auto-resume=1",
                        "-N1",
                        "printenv",
                        "AUTORESUME_SUPERVISED"));
        assertEquals(0, result.exitCode(), result::stderr);
        assertEquals(List.of("1"), result.stdout().lines().toList());
        assertEquals(1, supervisorCalls().size());

        // --export=NONE keeps only SLURM_* variables: the plugin carries the guard under such a name.
        result = run(
                Map.of(),
                List.of(
                        "srun",
                        "--export=NONE",
                        "--auto-resume=1",
                        "-N1",
                        "/usr/bin/srun",
                        "--overlap",
                        "--export=NONE",
                        "--auto-resume=1",
                        "-N1",
                        "/usr/bin/printenv",
                        "AUTORESUME_SUPERVISED",
                        "AUTO_RESUME_ATTEMPT"));
        assertEquals(0, result.exitCode(), result::stderr);
        assertEquals(List.of("1", "1"), result.stdout().lines().toList());
        assertEquals(2, supervisorCalls().size());
    }

    @Test
    void sbatchAutoResumeMakesThePlainSrunsOfItsScriptSupervised() {
        String script = """
                #!/bin/bash
                echo "DEFAULT=${SLURM_AUTO_RESUME-unset}"
                srun /usr/bin/true; echo "PLAIN=$?"
                srun --auto-resume=0 /usr/bin/true; echo "OPTED_OUT=$?"
                """;
        for (String export : List.of("--export=ALL", "--export=NONE")) {
            forgetCalls();
            String jobId = cluster.submit(script, List.of("-N1", "--auto-resume=1", export));
            Job job = cluster.waitForJobEnd(jobId, Duration.ofSeconds(90));
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, job.state(), output);
            assertTrue(
                    output.contains("DEFAULT=1\n") && output.contains("PLAIN=0\n") && output.contains("OPTED_OUT=0\n"),
                    export + ":\n" + output);
            assertEquals(List.of(List.of("supervise", "--", "srun", "/usr/bin/true")), supervisorCalls(), export);
        }

        forgetCalls();
        String jobId = cluster.submit(script, List.of("-N1"));
        String output = waitForCompleted(jobId);
        assertTrue(output.contains("DEFAULT=unset\n"), output);
        assertEquals(List.of(), supervisorCalls());
    }

    @Test
    void sallocAutoResumeMakesItsCommandsSrunSupervised() {
        CommandResult result = run(Map.of(), List.of("salloc", "-N1", "--auto-resume=1", "srun", "true"));
        assertEquals(0, result.exitCode(), result::stderr);
        assertEquals(List.of(List.of("supervise", "--", "srun", "true")), supervisorCalls());

        forgetCalls();
        assertEquals(0, run(Map.of(), List.of("salloc", "-N1", "srun", "true")).exitCode());
        assertEquals(List.of(), supervisorCalls());
    }

    @Test
    void srunSbatchAndSallocOfferTheOption() {
        for (String command : List.of("srun", "sbatch", "salloc")) {
            CommandResult help = run(Map.of(), List.of(command, "--help"));
            assertTrue(
                    help.stdout().contains("--auto-resume=[0|1]"),
                    command + " --help:\n" + help.stdout()); // --help text
        }
    }

    // ---- helpers ----

    /**
     * Runs argv as the test user with extra environment variables, through env(1) so that
     * argv[0] stays what the user typed, and without any auto-resume variable of the test's own.
     */
    private static CommandResult run(Map<String, String> environment, List<String> argv) {
        List<String> command = new ArrayList<>(List.of(
                "env",
                "-u",
                "SLURM_AUTO_RESUME",
                "-u",
                "AUTORESUME_SUPERVISED",
                "-u",
                "SLURM_AUTORESUME_SUPERVISED",
                "-u",
                "AUTO_RESUME_ATTEMPT",
                "-u",
                "SLURM_AUTO_RESUME_ATTEMPT"));
        new TreeMap<>(environment).forEach((k, v) -> command.add(k + "=" + v));
        command.addAll(argv);
        return cluster.runAsTestUser(command);
    }

    private static String waitForCompleted(String jobId) {
        Job job = cluster.waitForJobEnd(jobId, Duration.ofSeconds(90));
        String output = cluster.jobOutput(jobId);
        assertEquals(JobState.COMPLETED, job.state(), output);
        return output;
    }

    /** The argv (after the supervisor's own path) of each call of the fake supervisor since the last test. */
    private static List<List<String>> supervisorCalls() {
        try (Stream<Path> files = Files.list(records)) {
            List<List<String>> calls = new ArrayList<>();
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("call."))
                    .sorted()
                    .toList()) {
                String text = new String(Files.readAllBytes(f), StandardCharsets.UTF_8);
                List<String> args = new ArrayList<>(Arrays.asList(text.split("\0", -1)));
                args.remove(args.size() - 1); // after the last NUL
                calls.add(args);
            }
            return calls;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void forgetCalls() {
        try {
            forgetEarlierCalls();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Matcher> taskInitLines(String text) {
        List<Matcher> lines = new ArrayList<>();
        for (String line : text.lines().toList()) {
            Matcher m = TASK_INIT.matcher(line);
            if (m.find()) {
                lines.add(m);
            }
        }
        return lines;
    }

    /** srun -l output: each task's lines, in order, without the label. */
    private static Map<Integer, List<String>> byTask(String text) {
        Map<Integer, List<String>> tasks = new TreeMap<>();
        for (String line : text.lines().toList()) {
            Matcher m = LABELLED.matcher(line);
            if (m.matches()) {
                tasks.computeIfAbsent(Integer.parseInt(m.group(1)), t -> new ArrayList<>())
                        .add(m.group(2));
            }
        }
        return tasks;
    }

    private static void useSupervisor(Path supervisor) {
        plugstack.useAutoResume(supervisor);
    }

    /**
     * Stands in for {@code autoresume supervise}: writes down its argv (NUL-separated, one file
     * per call), then runs the srun it was handed with the guard set, as the real one does.
     */
    private static final String FAKE_SUPERVISOR = """
            #!/bin/bash
            set -euo pipefail
            record="$(mktemp "@RECORDS@/call.$(date +%s%N).XXXXXX")"
            printf '%s\\0' "$@" > "$record"
            if [ "$#" -lt 3 ] || [ "$1" != supervise ] || [ "$2" != -- ]; then
                echo "fake supervisor: unexpected arguments" >&2
                exit 99
            fi
            shift 2
            export AUTORESUME_SUPERVISED=1
            if [ -n "${FAKE_SUPERVISOR_ATTEMPT:-}" ]; then
                export AUTO_RESUME_ATTEMPT="$FAKE_SUPERVISOR_ATTEMPT"
            fi
            exec "$@"
            """;
}
