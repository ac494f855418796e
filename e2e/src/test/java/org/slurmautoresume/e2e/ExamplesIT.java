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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * Every script in {@code examples/sbatch/} run as users run them: as the ordinary test user,
 * submitted from the examples directory with {@code autoresume} on PATH and the plugin loaded.
 * The toy training job of {@code batch.sh} loses a node mid-training, goes on on a spare and
 * finishes without repeating a step it had checkpointed.
 */
class ExamplesIT {

    private static final String PREFIX = "87-examples-it-";
    private static final Duration JOB_END = Duration.ofSeconds(180);
    private static final Pattern STEP_LINE = Pattern.compile("^step=(\\d+) attempt=(\\d+) node=(\\S+) .*");
    private static LocalCluster cluster;
    private static SlurmTruth truth;
    private static SupervisedSteps supervised;
    private static LocalAgent agent;
    private static Path examples;
    private final List<String> jobs = new ArrayList<>();

    @BeforeAll
    static void installPluginAgentAndExamples() throws IOException {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
        supervised = SupervisedSteps.start(cluster, PREFIX);
        agent = supervised.agent();
        // A copy every node and the test user can read, as a shared filesystem would hold it.
        examples = supervised.plugstack().installDir().resolve("examples");
        Files.createDirectories(examples);
        Files.setPosixFilePermissions(examples, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (Stream<Path> files = Files.list(cluster.repo().resolve("examples/sbatch"))) {
            for (Path file : files.toList()) {
                Path copy = examples.resolve(file.getFileName().toString());
                Files.copy(file, copy);
                Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
        }
    }

    @AfterAll
    static void stop() throws InterruptedException {
        SupervisedSteps.stop(supervised);
    }

    @AfterEach
    void cancelWhatIsLeft() {
        jobs.forEach(job -> cluster.run(List.of("scancel", job)));
    }

    /** The environment a user's shell gives the examples: autoresume on PATH, and {@code settings}. */
    private static List<String> userEnvironment(List<String> settings) {
        List<String> argv = new ArrayList<>(List.of(
                "env",
                "-C",
                examples.toString(),
                "PATH=" + cluster.launcher().getParent() + ":" + System.getenv("PATH")));
        argv.addAll(settings);
        return argv;
    }

    /** {@code sbatch SCRIPT} from the examples directory as the test user; output to jobs/ID.out. */
    private String sbatch(String script, List<String> settings, String... options) {
        List<String> argv = userEnvironment(settings);
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
        jobs.add(jobId);
        StaleSchedulerState.watch(cluster, jobId);
        return jobId;
    }

    private static Path checkpointDir(String name) {
        return cluster.jobsDir().resolve("examples-" + name + "-" + System.nanoTime());
    }

    private static List<String> stepLog(Path checkpoints) {
        try {
            Path log = checkpoints.resolve("steps.log");
            return Files.exists(log) ? Files.readAllLines(log) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Integer> steps(List<String> log, String attempt) {
        List<Integer> steps = new ArrayList<>();
        for (String line : log) {
            Matcher m = STEP_LINE.matcher(line);
            assertTrue(m.matches(), "not a step line: " + line);
            if (attempt == null || m.group(2).equals(attempt)) {
                steps.add(Integer.parseInt(m.group(1)));
            }
        }
        return steps;
    }

    @Test
    void showEnvPrintsTheJobsNodesAndMasterFromAutoresumeEnv() {
        String jobId = sbatch("show-env.sh", List.of(), "-N2");
        Job done = cluster.waitForJobEnd(jobId, JOB_END);
        String output = cluster.jobOutput(jobId);
        assertEquals(JobState.COMPLETED, done.state(), output);
        String nodeList = truth.jobField(jobId, "NodeList");
        String master = truth.hostnames(nodeList).get(0);
        assertTrue(output.contains("NODE_LIST=" + nodeList + "\n"), output);
        assertTrue(output.contains("MASTER_NODE=" + master + "\n"), output);
        assertTrue(output.contains("MASTER_ADDR=" + truth.nodeField(master, "NodeAddr") + "\n"), output);
        assertTrue(output.contains("rank 0 on " + master), output);
        assertTrue(output.contains("rank 1 on "), output);
    }

    /**
     * batch.sh (entry.sh, train.py) on node[1-2] with node4 as the spare: node2 dies after a few
     * checkpointed steps; the step runs again on node[1,4], resumes after the newest checkpoint,
     * and the job completes with every step trained once.
     */
    @Test
    @Tag(LocalCluster.CPU_ONLY) // batch.sh's spare comes from a spare pool: job expansion, refused on the GPU shape
    void theTrainingJobSurvivesAKilledNodeAndRepeatsNoCheckpointedStep() {
        Path checkpoints = checkpointDir("batch");
        int totalSteps = 12;
        String jobId = sbatch(
                "batch.sh",
                List.of(
                        "AUTORESUME_SPARE_NODES=node4",
                        "AUTORESUME_AGENT_SOCKET=" + agent.socket(),
                        "CKPT_DIR=" + checkpoints,
                        "STEPS=" + totalSteps,
                        "STEP_SECONDS=1"),
                "-w",
                "node[1-2]");
        Wait.until(
                "job " + jobId + " to checkpoint 3 steps",
                Duration.ofSeconds(90),
                () -> stepLog(checkpoints).size() >= 3 ? Optional.of(true) : Optional.empty());
        Job done;
        String node2Reason;
        try {
            cluster.killNode("node2");
            done = cluster.waitForJobEnd(jobId, JOB_END);
            node2Reason = truth.nodeField("node2", "Reason");
        } finally {
            cluster.reviveNode("node2");
            cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
        }
        String output = cluster.jobOutput(jobId);
        List<String> log = stepLog(checkpoints);
        assertEquals(JobState.COMPLETED, done.state(), output + log);
        assertEquals("node[1,4]", truth.jobField(jobId, "NodeList"));

        // Attempt 1 trained some steps; attempt 2 started right after the newest checkpoint.
        List<Integer> first = steps(log, "1");
        List<Integer> second = steps(log, "2");
        assertTrue(first.size() >= 3 && !second.isEmpty(), "both attempts should have trained: " + log);
        Matcher resumed = Pattern.compile("rank 0/2 on node1: attempt 2, nodes node\\[1,4\\], master 127\\.0\\.0\\.1,"
                        + " resuming after step (\\d+)")
                .matcher(output);
        assertTrue(resumed.find(), output);
        int resumedAfter = Integer.parseInt(resumed.group(1));
        int lastOfFirst = first.get(first.size() - 1);
        // The log line follows the checkpoint, so the node may die between the two: the newest
        // checkpoint is the last logged step or the one after it, never an earlier one.
        assertTrue(
                resumedAfter == lastOfFirst || resumedAfter == lastOfFirst + 1,
                "resumed after step " + resumedAfter + " but attempt 1 had checkpointed " + lastOfFirst);
        assertEquals(resumedAfter + 1, second.get(0), log.toString());
        assertTrue(output.contains("rank 1/2 on node4: attempt 2"), output);

        List<Integer> all = steps(log, null);
        for (int i = 1; i < all.size(); i++) {
            assertTrue(all.get(i) > all.get(i - 1), "step " + all.get(i) + " repeated or out of order: " + log);
        }
        assertEquals(totalSteps, all.get(all.size() - 1), log.toString());
        assertTrue(output.contains("training finished: step=" + totalSteps + " attempt=2 node=node1"), output);
        assertTrue(node2Reason.startsWith("Action:Replace"), node2Reason);
        Timeline.Event replacement = Timeline.of(cluster, jobId).only(Timeline.Kind.REPLACEMENT);
        assertEquals(
                List.of("node2", "node[1,4]"),
                List.of(replacement.faultyNodes(), replacement.nodeList()),
                replacement.toString());
    }

    /**
     * torchrun.sh on 2 of a job's 3 nodes, the third an in-job spare: every rank sizes the run
     * from `autoresume env` (NNODES, NODE_LIST, MASTER_ADDR), as torchrun users do. node2 dies
     * after a few checkpointed steps; the step runs again on node1 and the spare, and on both
     * attempts the ranks count the 2 nodes the step runs on, never the idle spare (a world of 3
     * would wait for a rank that never comes and train nothing).
     */
    @Test
    void theTorchrunExampleSizedFromNnodesSurvivesAKilledNodeWithAnInJobSpare() {
        Path checkpoints = checkpointDir("torchrun");
        int totalSteps = 12;
        // LAUNCHER=direct: the stand-in runs whatever torchrun this machine has (none, or bookworm's
        // broken one); the torchrun path itself needs a working torchrun and is not checked here.
        String jobId = sbatch(
                "torchrun.sh",
                List.of(
                        "AUTORESUME_AGENT_SOCKET=" + agent.socket(),
                        "CKPT_DIR=" + checkpoints,
                        "STEPS=" + totalSteps,
                        "STEP_SECONDS=1",
                        "STEP_NODES=2",
                        "LAUNCHER=direct"),
                "-N3",
                "-w",
                "node[1-3]");
        Wait.until(
                "job " + jobId + " to checkpoint 3 steps",
                Duration.ofSeconds(120),
                () -> stepLog(checkpoints).size() >= 3 ? Optional.of(true) : Optional.empty());
        Job done = cluster.killNodeUntilJobEnds(jobId, "node2", JOB_END);
        String output = cluster.jobOutput(jobId);
        List<String> log = stepLog(checkpoints);
        assertEquals(JobState.COMPLETED, done.state(), output + log);
        assertEquals("node[1,3]", truth.jobField(jobId, "NodeList"));
        String masterAddr = truth.nodeField("node1", "NodeAddr");

        // Attempt 1 on node[1-2], attempt 2 on node[1,3]: each rank of each attempt one of 2.
        for (String attempt : List.of("1", "2")) {
            String nodes = attempt.equals("1") ? "node[1-2]" : "node[1,3]";
            String second = attempt.equals("1") ? "node2" : "node3";
            assertTrue(
                    output.contains("rank 0/2 on node1: attempt " + attempt + ", nodes " + nodes + ", master "
                            + masterAddr + ", resuming after step "),
                    output);
            assertTrue(output.contains("rank 1/2 on " + second + ": attempt " + attempt + ", nodes " + nodes), output);
        }
        assertTrue(
                output.contains("node 1: direct launch (LAUNCHER=direct): stand-in: python3 ")
                        && output.contains(" as rank 1 of 2, master " + masterAddr + ":29500"),
                output);
        assertFalse(output.contains(" of 3, master"), "a rank counted the spare: " + output);
        assertFalse(output.contains("on node3: attempt 1"), "the spare stays idle at first: " + output);

        List<Integer> all = steps(log, null);
        assertEquals(IntStream.rangeClosed(1, totalSteps).boxed().toList(), all, log.toString());
        assertTrue(steps(log, "1").size() >= 3 && !steps(log, "2").isEmpty(), log.toString());
        assertTrue(output.contains("training finished: step=" + totalSteps + " attempt=2 node=node1"), output);
        Timeline.Event replacement = Timeline.of(cluster, jobId).only(Timeline.Kind.REPLACEMENT);
        assertEquals(
                List.of("in-job-spare", "node2", "node[1,3]"),
                List.of(replacement.detail("path"), replacement.faultyNodes(), replacement.detail("stepNodes")),
                replacement.toString());
    }

    @Test
    void theSallocExampleRunsTheSupervisedStepInAnAllocation() throws Exception {
        Path checkpoints = checkpointDir("salloc");
        Path out = cluster.jobsDir().resolve("examples-salloc-" + System.nanoTime() + ".out");
        List<String> argv = userEnvironment(List.of(
                "CKPT_DIR=" + checkpoints, "STEPS=3", "STEP_SECONDS=0.1", "AUTORESUME_AGENT_SOCKET=" + agent.socket()));
        argv.addAll(List.of("./salloc.sh", "-w", "node[1-2]"));
        Process salloc = new ProcessBuilder(cluster.asTestUser(argv))
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        try {
            assertTrue(salloc.waitFor(JOB_END.toSeconds(), TimeUnit.SECONDS), "salloc did not end");
            String output = Files.readString(out);
            assertEquals(0, salloc.exitValue(), output);
            assertTrue(output.contains("Granted job allocation"), output); // salloc's own words: it ran
            assertTrue(output.contains("rank 0/2 on node1: attempt 1, nodes node[1-2], master 127.0.0.1"), output);
            assertTrue(output.contains("rank 1/2 on node2: finished step 3"), output);
            // The plugin's task_init line is the feature (the per-task line HyperPod users know).
            assertTrue(output.contains("task_init"), "the step did not run supervised: " + output);
            assertEquals(List.of(1, 2, 3), steps(stepLog(checkpoints), "1"));
        } finally {
            salloc.destroyForcibly();
        }
    }

    @Test
    void theEntryScriptRefusesToRunWithoutACommand() {
        CommandResult result = cluster.run(List.of(examples.resolve("entry.sh").toString()));
        assertEquals(2, result.exitCode(), result.stderr());
        // The wording is the feature: the example's usage line, for the person who called it wrong.
        assertTrue(result.stderr().contains("usage: entry.sh COMMAND"), result.stderr());
        assertFalse(result.stdout().contains("NODE_LIST"), result.stdout());
    }
}
