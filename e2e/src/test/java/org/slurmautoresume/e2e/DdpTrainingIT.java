package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * A real distributed training job: examples/sbatch/ddp.sh, PyTorch DistributedDataParallel on the
 * gloo backend, one rank per node started by {@code srun --auto-resume=1 -N2} in a 3-node job (one
 * in-job spare). The second step node dies mid-training; the step runs again on the first node and
 * the spare, the ranks form a new process group of two there, resume from the torch.save checkpoint,
 * and the job completes with every step trained exactly once.
 */
class DdpTrainingIT {

    private static final String PREFIX = "86-ddp-training-it-";
    /** As InJobSpareIT: an earlier test's resized job may leave nodes PLANNED until the next node ping. */
    private static final Duration FIRST_STEPS = Duration.ofSeconds(300);

    private static final Duration JOB_END = Duration.ofSeconds(240);
    private static final int STEPS = 12;
    private static final Pattern RECORD =
            Pattern.compile("^step=(\\d+) world=(\\d+) attempt=(\\d+) allreduce=(\\d+) hosts=(\\S+) loss=\\S+ t=\\S+$");
    private static LocalCluster cluster;
    private static SlurmTruth truth;
    private static SupervisedSteps supervised;
    private static Path examples;

    /** One line of steps.log, as ddp_train.py's rank 0 writes it after each checkpoint. */
    private record StepRecord(int step, int world, int attempt, int allReduced, String hosts) {
        static StepRecord parse(String line) {
            Matcher m = RECORD.matcher(line);
            assertTrue(m.matches(), "not a step record: " + line);
            return new StepRecord(
                    Integer.parseInt(m.group(1)),
                    Integer.parseInt(m.group(2)),
                    Integer.parseInt(m.group(3)),
                    Integer.parseInt(m.group(4)),
                    m.group(5));
        }
    }

    @BeforeAll
    static void installPluginAgentAndExamples() throws IOException {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
        supervised = SupervisedSteps.start(cluster, PREFIX);
        // Where every node and the test user can read the examples, as a shared filesystem would hold them.
        examples = supervised.plugstack().installDir().resolve("examples");
        Files.createDirectories(examples);
        Files.setPosixFilePermissions(examples, PosixFilePermissions.fromString("rwxr-xr-x"));
        for (String name : List.of("ddp.sh", "ddp_train.py")) {
            Path copy = examples.resolve(name);
            Files.copy(cluster.repo().resolve("examples/sbatch").resolve(name), copy);
            Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    @AfterAll
    static void stop() throws InterruptedException {
        SupervisedSteps.stop(supervised);
    }

    @Test
    void theDdpJobReformsItsProcessGroupOnTheSpareAndTrainsNoStepTwice() {
        Path checkpoints = cluster.jobsDir().resolve("ddp-" + System.nanoTime());
        String jobId = sbatchAsUser(
                "ddp.sh",
                List.of(
                        "AUTORESUME_AGENT_SOCKET=" + supervised.agent().socket(),
                        "CKPT_DIR=" + checkpoints,
                        "STEPS=" + STEPS,
                        "STEP_SECONDS=1"),
                "-w",
                "node[1-3]");
        boolean trained = false;
        try {
            Wait.until(
                    "job " + jobId + " to train 3 steps",
                    FIRST_STEPS,
                    () -> completeLines(checkpoints) >= 3 ? Optional.of(true) : Optional.empty());
            trained = true;
        } finally {
            if (!trained) {
                cluster.run(List.of("scancel", jobId));
            }
        }
        Job done = cluster.killNodeUntilJobEnds(jobId, "node2", JOB_END);
        String output = cluster.jobOutput(jobId);
        List<StepRecord> records = records(checkpoints);
        assertEquals(JobState.COMPLETED, done.state(), output + records);
        assertEquals("node[1,3]", truth.jobField(jobId, "NodeList"));

        // Every step exactly once, in order, each by a full process group whose all-reduce crossed both ranks.
        assertEquals(
                IntStream.rangeClosed(1, STEPS).boxed().toList(),
                records.stream().map(StepRecord::step).toList(),
                records.toString());
        records.forEach(r -> assertEquals(List.of(2, 2), List.of(r.world(), r.allReduced()), r.toString()));
        List<StepRecord> first = records.stream().filter(r -> r.attempt() == 1).toList();
        List<StepRecord> second = records.stream().filter(r -> r.attempt() == 2).toList();
        assertEquals(records.size(), first.size() + second.size(), records.toString());
        assertTrue(first.size() >= 3 && !second.isEmpty(), "both attempts should have trained: " + records);
        first.forEach(r -> assertEquals("node1,node2", r.hosts(), r.toString()));
        second.forEach(r -> assertEquals("node1,node3", r.hosts(), r.toString()));

        // Both attempts met at node1's address on the port derived from the job id; the re-run went
        // on after the last checkpoint.
        String master = "master 127.0.0.1:" + (20000 + Integer.parseInt(jobId) % 10000);
        assertTrue(
                output.contains("rank 0/2 on node1: attempt 1, process group of 2 on node1,node2, " + master
                        + ", resuming after step 0"),
                output);
        Matcher reformed = Pattern.compile("rank 0/2 on node1: attempt 2, process group of 2 on node1,node3, "
                        + Pattern.quote(master) + ", resuming after step (\\d+)")
                .matcher(output);
        assertTrue(reformed.find(), output);
        assertEquals(first.get(first.size() - 1).step(), Integer.parseInt(reformed.group(1)), output);
        assertTrue(output.contains("rank 1/2 on node3: finished step " + STEPS), output);
        assertFalse(output.contains("on node3: attempt 1"), "the spare stays idle at first: " + output);
        assertTrue(output.contains("training finished: step=" + STEPS + " world=2 attempt=2"), output);

        Timeline timeline = Timeline.of(cluster, jobId);
        Timeline.Event replacement = timeline.only(Timeline.Kind.REPLACEMENT);
        assertEquals(
                List.of("in-job-spare", "node2", "node3", "node[1,3]"),
                List.of(
                        replacement.detail("path"),
                        replacement.faultyNodes(),
                        replacement.detail("spares"),
                        replacement.detail("stepNodes")),
                timeline.toString());
        assertEquals(List.of(1, 2), timeline.launchedAttempts(), timeline.toString());
        assertEquals(JobState.COMPLETED.name(), accountedState(jobId));
    }

    /** {@code sbatch SCRIPT} from the examples directory as the test user, autoresume on PATH. */
    private static String sbatchAsUser(String script, List<String> settings, String... options) {
        List<String> argv = new ArrayList<>(List.of(
                "env",
                "-C",
                examples.toString(),
                "PATH=" + cluster.launcher().getParent() + ":" + System.getenv("PATH")));
        argv.addAll(settings);
        argv.addAll(List.of(
                "sbatch",
                "--parsable",
                "--output=" + cluster.jobsDir().resolve("%j.out"),
                "--chdir=" + cluster.jobsDir()));
        argv.addAll(List.of(options));
        argv.add(script);
        CommandResult result = cluster.runAsTestUser(argv);
        assertEquals(0, result.exitCode(), () -> "sbatch " + script + " failed: " + result.stderr());
        String jobId = result.stdout().strip().split(";")[0];
        StaleSchedulerState.watch(cluster, jobId);
        return jobId;
    }

    /** Lines rank 0 has finished writing, counted while it may be writing the next. */
    private static long completeLines(Path checkpoints) {
        try {
            Path log = checkpoints.resolve("steps.log");
            return Files.exists(log)
                    ? Files.readString(log).chars().filter(c -> c == '\n').count()
                    : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<StepRecord> records(Path checkpoints) {
        try {
            Path log = checkpoints.resolve("steps.log");
            return Files.exists(log)
                    ? Files.readAllLines(log).stream().map(StepRecord::parse).toList()
                    : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The job's final state in Slurm's accounting, once slurmdbd has recorded its end. Each shrink
     * closes one record of the job as RESIZING and opens the next, so the last record is the job's end.
     */
    private static String accountedState(String jobId) {
        return Wait.until("sacct to record the end of job " + jobId, Duration.ofSeconds(60), () -> {
            CommandResult sacct = cluster.run(List.of("sacct", "-X", "-n", "-P", "-j", jobId, "-o", "State"));
            List<String> records = sacct.stdout()
                    .lines()
                    .map(String::strip)
                    .filter(l -> !l.isEmpty())
                    .toList();
            String last = records.isEmpty() ? "" : records.get(records.size() - 1);
            return sacct.succeeded() && !last.isEmpty() && !last.equals("RUNNING")
                    ? Optional.of(last)
                    : Optional.empty();
        });
    }
}
