package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.parse.ConfigParser;

/**
 * The recovery paths beyond one fault healed by a spare (see {@link NodeFaultRecoveryIT}): the
 * node back under its own hostname, brought back by the platform or by the site's replace
 * command through the agent; the master node of an salloc job killed; two faults in a row, both
 * repaired; the
 * budget used up (exit, or requeue); the job cancelled, and the supervisor SIGKILLed, while
 * recovery waits. Every node a test kills is revived and resumed after it.
 *
 * <p>Those that grow the job back from outside it (a spare pool, the node under its own name)
 * are job expansion and run on the cpu-only cluster; a GPU job with an in-job spare told its
 * checkpoint, and the budget used up, run on the GPU shape.
 */
class RecoveryScenariosIT {

    private static final String PREFIX = "86-recovery-it-";
    private static final Duration JOB_END = Duration.ofSeconds(180);
    /** From a node fault with no repair left to the requeued batch script's start, at most. */
    private static final Duration REQUEUED_RUN_STARTS = Duration.ofSeconds(30);

    private static LocalCluster cluster;
    private static SlurmTruth truth;
    private static Plugstack plugstack;
    private static LocalAgent agent;
    private final List<String> killed = new ArrayList<>();
    private final List<String> jobs = new ArrayList<>();

    @BeforeAll
    static void startAgentAndPlugin() throws IOException {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
        plugstack = Plugstack.install(cluster, PREFIX, List.of("auto_resume.so"));
        plugstack.useAutoResume(cluster.launcher());
        // The site's replace command: here the "new instance" is the node's slurmd started afresh.
        Path replace = plugstack.installDir().resolve("replace-node.sh");
        Files.writeString(
                replace,
                "#!/bin/bash\nset -euo pipefail\nexport AR_CLUSTER_DIR='" + cluster.clusterDir()
                        + "'\nexec '" + cluster.repo().resolve("local-cluster/local-cluster.sh")
                        + "' revive-node \"$1\" --fresh\n");
        Files.setPosixFilePermissions(replace, PosixFilePermissions.fromString("rwxr-xr-x"));
        agent = LocalAgent.start(
                cluster,
                plugstack.installDir().resolve("agent"),
                "--replace-command",
                replace.toString(),
                "--metrics-listen",
                "127.0.0.1:0");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (agent != null) {
            agent.stop();
        }
        if (plugstack != null) {
            plugstack.removeAll();
        }
    }

    @AfterEach
    void restoreTheCluster() {
        for (String job : jobs) {
            cluster.run(List.of("scancel", job));
        }
        for (String node : killed) {
            cluster.reviveNode(node);
        }
        for (String node : cluster.nodeNames()) {
            if (truth.nodeField(node, "State").matches(".*(FAIL|DOWN|DRAIN).*")) {
                cluster.run(List.of("scontrol", "update", "nodename=" + node, "state=resume"));
            }
        }
    }

    /** A 2-task step; attempts below {@code finalAttempt} mark themselves up and then hang. */
    private static String script(String environment, int finalAttempt) {
        return """
                #!/bin/bash
                export AUTORESUME_AGENT_SOCKET=%s %s
                srun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c '
                  echo "attempt=$AUTO_RESUME_ATTEMPT node=$SLURMD_NODENAME list=$NODE_LIST master=$MASTER_ADDR"
                  if [ "$AUTO_RESUME_ATTEMPT" -lt %d ]; then
                    touch "$SLURM_JOB_ID.a$AUTO_RESUME_ATTEMPT.$SLURM_PROCID"; sleep 300
                  fi'
                echo "SRUN_EXIT=$?"
                """.formatted(agent.socket(), environment, finalAttempt);
    }

    private String submit(String script, String... options) {
        String jobId = cluster.submit(script, List.of(options));
        jobs.add(jobId);
        return jobId;
    }

    private void awaitAttempt(String jobId, int attempt) {
        // A first start can wait on Slurm's scheduler: in full-suite runs nodes have stayed
        // PLANNED after resized jobs ended, until slurmctld's next node ping: about two ping
        // intervals at most with SlurmdTimeout=300, 204 s the longest seen (docs/slurm-behaviour.md).
        // Later attempts run in the job's own allocation and are what these tests time.
        Duration limit = attempt == 1 ? Duration.ofSeconds(300) : Duration.ofSeconds(90);
        Wait.until(
                "both tasks of attempt " + attempt + " of job " + jobId + " to run",
                limit,
                () -> Files.exists(cluster.jobsDir().resolve(jobId + ".a" + attempt + ".0"))
                                && Files.exists(cluster.jobsDir().resolve(jobId + ".a" + attempt + ".1"))
                        ? Optional.of(true)
                        : Optional.empty());
    }

    /**
     * A same-hostname job on node[1-2] whose node2 was killed, once its recovery waits for node2
     * to come back: the policy chose to replace the node (timeline) and the job has dropped it
     * (Slurm), which is the last step before the wait.
     */
    private String waitingForNode2UnderItsOwnName() {
        String jobId = submit(
                script("AUTORESUME_REPLACEMENT=same-hostname AUTORESUME_REPLACEMENT_TIMEOUT=120", 2),
                "-N2",
                "-w",
                "node[1-2]",
                "--exclusive");
        awaitAttempt(jobId, 1);
        kill("node2");
        Timeline.awaitReplaceDecision(cluster, jobId, Duration.ofSeconds(60));
        Wait.until(
                "job " + jobId + " to drop node2",
                Duration.ofSeconds(30),
                () -> truth.jobField(jobId, "NodeList").equals("node1") ? Optional.of(true) : Optional.empty());
        return jobId;
    }

    /** The one replacement of the job's timeline, after a node fault the policy chose to repair. */
    private Timeline.Event replacement(String jobId) {
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(
                List.of("REPLACE_NODES_AND_RERUN"),
                timeline.all(Timeline.Kind.DECISION).stream()
                        .map(Timeline.Event::level)
                        .toList(),
                timeline.toString());
        assertEquals("NODE_FAULT", timeline.only(Timeline.Kind.DECISION).detail("fault"), timeline.toString());
        assertEquals(List.of(1, 2), timeline.launchedAttempts(), timeline.toString());
        return timeline.only(Timeline.Kind.REPLACEMENT);
    }

    private void kill(String node) {
        killed.add(node);
        cluster.killNode(node);
    }

    private List<String> donorsOf(String jobId) {
        CommandResult result = cluster.run(List.of("squeue", "-h", "-o", "%A", "--name=autoresume-donor-" + jobId));
        return result.stdout()
                .lines()
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .toList();
    }

    @Test
    @Tag(LocalCluster.CPU_ONLY)
    void theNodeBackUnderItsOwnHostnameIsResumedAndTheStepRunsOnIt() {
        String jobId = waitingForNode2UnderItsOwnName();
        cluster.reviveNode("node2"); // the platform's new instance registers under the old name
        Job done = cluster.waitForJobEnd(jobId, JOB_END);
        String output = cluster.jobOutput(jobId);
        assertEquals(JobState.COMPLETED, done.state(), output);
        assertTrue(output.contains("attempt=2 node=node2 list=node[1-2] master=127.0.0.1"), output);
        Timeline.Event replacement = replacement(jobId);
        assertEquals(
                List.of("node2", "node[1-2]"),
                List.of(replacement.faultyNodes(), replacement.nodeList()),
                replacement.toString());
        assertFalse(truth.nodeField("node2", "State").contains("FAIL"), truth.nodeField("node2", "State"));
    }

    @Test
    @Tag(LocalCluster.CPU_ONLY)
    void theAgentRunsTheSitesReplaceCommandAndTheStepRunsOnTheReplacedNode() {
        String jobId = submit(
                script("AUTORESUME_REPLACEMENT=command AUTORESUME_REPLACEMENT_TIMEOUT=120", 2),
                "-N2",
                "-w",
                "node[1-2]",
                "--exclusive");
        awaitAttempt(jobId, 1);
        kill("node2");
        Job done = cluster.waitForJobEnd(jobId, JOB_END);
        String output = cluster.jobOutput(jobId);
        assertEquals(JobState.COMPLETED, done.state(), output);
        assertTrue(output.contains("attempt=2 node=node2 list=node[1-2]"), output);
        Timeline.Event replacement = replacement(jobId);
        assertEquals(
                List.of("node2", "node[1-2]"),
                List.of(replacement.faultyNodes(), replacement.nodeList()),
                replacement.toString());
        String audit = LocalAgent.read(agent.auditLog());
        assertTrue(
                audit.lines()
                        .anyMatch(l -> l.contains("\"op\":\"replace\"")
                                && l.contains("\"jobId\":\"" + jobId + "\"")
                                && l.contains("\"node2\"")),
                "the agent ran no replace command for node2: " + audit);
    }

    @Test
    @Tag(LocalCluster.CPU_ONLY)
    void theMasterNodeOfAnSallocJobDiesAndTheStepMovesToANewMaster() throws Exception {
        Path out = cluster.jobsDir().resolve("salloc-master-" + System.nanoTime() + ".out");
        List<String> argv = cluster.asTestUser(
                List.of(
                        "salloc",
                        "-N2",
                        "-w",
                        "node[1-2]",
                        "--exclusive",
                        "env",
                        "AUTORESUME_SPARE_NODES=node4",
                        "AUTORESUME_AGENT_SOCKET=" + agent.socket(),
                        "srun",
                        "--auto-resume=1",
                        "-N2",
                        "--ntasks-per-node=1",
                        "bash",
                        "-c",
                        "echo \"attempt=$AUTO_RESUME_ATTEMPT node=$SLURMD_NODENAME list=$NODE_LIST master=$MASTER_ADDR"
                                + " master_node=$MASTER_NODE\";"
                                + " if [ \"$AUTO_RESUME_ATTEMPT\" = 1 ]; then touch \"$SLURM_JOB_ID.a1.$SLURM_PROCID\"; sleep 300; fi"));
        Process salloc = new ProcessBuilder(argv)
                .directory(cluster.jobsDir().toFile())
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        try {
            String jobId = Wait.until("salloc's job to start", Duration.ofSeconds(60), () -> {
                String id = cluster.run(List.of("squeue", "-h", "-u", cluster.testUser(), "-o", "%A"))
                        .stdout()
                        .strip();
                return id.matches("\\d+") ? Optional.of(id) : Optional.empty();
            });
            jobs.add(jobId);
            awaitAttempt(jobId, 1);
            kill("node1"); // the first node: MASTER_ADDR's, and salloc's BatchHost, though no script runs there
            assertTrue(salloc.waitFor(JOB_END.toSeconds(), TimeUnit.SECONDS), "salloc did not end");
            String output = Files.readString(out);
            assertEquals(0, salloc.exitValue(), output);
            assertTrue(
                    output.contains("attempt=2 node=node2 list=node[2,4] master=127.0.0.2 master_node=node2"), output);
            assertTrue(
                    output.contains("attempt=2 node=node4 list=node[2,4] master=127.0.0.2 master_node=node2"), output);
            Timeline.Event replacement = replacement(jobId);
            assertEquals(
                    List.of("node1", "node[2,4]", "127.0.0.2"),
                    List.of(replacement.faultyNodes(), replacement.nodeList(), replacement.detail("masterAddr")),
                    replacement.toString());
            assertTrue(
                    truth.nodeField("node1", "Reason").startsWith("Action:Replace"),
                    truth.nodeField("node1", "Reason"));
        } finally {
            salloc.destroyForcibly();
        }
    }

    /**
     * Two faults in a row, each repaired from the spare pool: the job is shrunk and grown twice.
     * This needs accounting (the local cluster runs slurmdbd): without it Slurm 22.05 refuses
     * every change to a job once it has been grown, which {@code JobResizerTest} covers.
     */
    @Test
    @Tag(LocalCluster.CPU_ONLY)
    void twoFaultsInARowAreBothRepaired() {
        String before = agent.scrapeMetrics();
        String jobId = submit(script("AUTORESUME_SPARE_NODES=node[3-4]", 3), "-N2", "-w", "node[1-2]", "--exclusive");
        awaitAttempt(jobId, 1);
        kill("node2");
        awaitAttempt(jobId, 2);
        assertEquals("node[1,3]", truth.jobField(jobId, "NodeList"));
        kill("node3");
        Job done = cluster.waitForJobEnd(jobId, JOB_END);
        String output = cluster.jobOutput(jobId);
        assertEquals(JobState.COMPLETED, done.state(), output);
        assertTrue(output.contains("attempt=2 node=node3 list=node[1,3]"), output);
        assertTrue(output.contains("attempt=3 node=node4 list=node[1,4] master=127.0.0.1"), output);
        assertTrue(output.contains("attempt=3 node=node1 list=node[1,4] master=127.0.0.1"), output);
        assertTrue(output.contains("SRUN_EXIT=0"), output);
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(
                List.of("node2 -> node[1,3]", "node3 -> node[1,4]"),
                timeline.all(Timeline.Kind.REPLACEMENT).stream()
                        .map(e -> e.faultyNodes() + " -> " + e.nodeList())
                        .toList(),
                timeline.toString());
        assertEquals(List.of(1, 2, 3), timeline.launchedAttempts(), timeline.toString());
        // The wording is the feature: a cluster set up as resume needs it gets no preflight advice.
        assertFalse(output.contains("preflight"), output);
        for (String node : List.of("node2", "node3")) {
            assertTrue(truth.nodeField(node, "State").contains("FAIL"), node + ": " + truth.nodeField(node, "State"));
            assertTrue(truth.nodeField(node, "Reason").startsWith("Action:Replace"), truth.nodeField(node, "Reason"));
        }
        // The agent's metrics, scraped over HTTP, moved by exactly this job's two repairs.
        String after = agent.scrapeMetrics();
        for (String series : List.of(
                "autoresume_nodes_replaced_total",
                "autoresume_nodes_marked_total{action=\"replace\"}",
                "autoresume_jobs_restarted_total{level=\"recover\"}",
                "autoresume_node_replacement_latency_seconds_count",
                "autoresume_jobs_restart_latency_seconds_count{level=\"recover\"}")) {
            assertEquals(
                    2.0, LocalAgent.sample(after, series) - LocalAgent.sample(before, series), series + "\n" + after);
        }
        assertEquals(
                1.0,
                LocalAgent.sample(after, "autoresume_jobs_successful_total")
                        - LocalAgent.sample(before, "autoresume_jobs_successful_total"),
                after);
    }

    /**
     * Checkpoint-aware re-run: the re-run is told the newest complete checkpoint (a DCP-style
     * directory whose .metadata was written), never the one the fault cut short. A job whose
     * third node is its in-job spare.
     *
     * <p>On the cpu-only cluster for now: on Slurm 22.05 a GPU job shrunk after a node fault
     * leaves its spare's GPUs counted as used (GresUsed=gpu:4 on an IDLE node, for more than five
     * minutes) once the job ends, so this 3-node GPU job, after InJobSpareIT and
     * GpuFaultRecoveryIT, waited 300 s for GPUs Slurm no longer had free (docs/slurm-behaviour.md,
     * "GPUs left counted as used after a shrink"). The GPU path itself is tested by those classes.
     */
    @Test
    @Tag(LocalCluster.CPU_ONLY)
    void theReRunIsToldTheNewestCompleteCheckpoint() {
        String jobId = submit("""
                #!/bin/bash
                export AUTORESUME_AGENT_SOCKET=%s
                export AUTORESUME_CHECKPOINT_DIR="$PWD/ckpt-$SLURM_JOB_ID"
                srun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c '
                  echo "attempt=$AUTO_RESUME_ATTEMPT rank=$SLURM_PROCID resume_from=${AUTO_RESUME_CHECKPOINT:-none} gpus=${CUDA_VISIBLE_DEVICES-none}"
                  if [ "$AUTO_RESUME_ATTEMPT" -lt 2 ]; then
                    if [ "$SLURM_PROCID" = 0 ]; then
                      for s in 100 200; do
                        mkdir -p "$AUTORESUME_CHECKPOINT_DIR/step-$s"; echo shard > "$AUTORESUME_CHECKPOINT_DIR/step-$s/__0_0.distcp"
                        echo meta > "$AUTORESUME_CHECKPOINT_DIR/step-$s/.metadata"
                      done
                      mkdir -p "$AUTORESUME_CHECKPOINT_DIR/step-300"; echo shard > "$AUTORESUME_CHECKPOINT_DIR/step-300/__0_0.distcp"
                    fi
                    touch "$SLURM_JOB_ID.a$AUTO_RESUME_ATTEMPT.$SLURM_PROCID"; sleep 300
                  fi'
                echo "SRUN_EXIT=$?"
                """.formatted(agent.socket()), "-N3", "-w", "node[1-3]", "--exclusive");
        awaitAttempt(jobId, 1);
        kill("node2");
        Job done = cluster.waitForJobEnd(jobId, JOB_END);
        String output = cluster.jobOutput(jobId);
        assertEquals(JobState.COMPLETED, done.state(), output);
        String expected =
                cluster.jobsDir().resolve("ckpt-" + jobId).resolve("step-200").toString();
        assertTrue(output.contains("attempt=1 rank=0 resume_from=none gpus=none"), output);
        assertTrue(output.contains("attempt=2 rank=0 resume_from=" + expected + " gpus=none"), output);
        assertTrue(output.contains("attempt=2 rank=1 resume_from=" + expected + " gpus=none"), output);
        assertEquals("node[1,3]", truth.jobField(jobId, "NodeList")); // node3, the job's own spare, took node2's place
        assertTrue(output.contains("SRUN_EXIT=0"), output);
    }

    @ParameterizedTest
    @ValueSource(strings = {"exit", "requeue"})
    void pastTheNodeBudgetTheJobExitsOrIsRequeuedAsConfigured(String onExhausted) {
        String jobId = submit(
                script(
                        "AUTORESUME_SPARE_NODES=node4 AUTORESUME_MAX_NODE_RETRIES=0" + " AUTORESUME_ON_EXHAUSTED="
                                + onExhausted,
                        2),
                "-N2",
                "-w",
                "node[1-2]",
                "--exclusive",
                "--gpus-per-node=2",
                "--requeue",
                "--open-mode=append");
        awaitAttempt(jobId, 1);
        kill("node2");
        if (onExhausted.equals("exit")) {
            Job done = cluster.waitForJobEnd(jobId, JOB_END);
            String output = cluster.jobOutput(jobId);
            Timeline timeline = Timeline.of(cluster, jobId);
            Timeline.Event decision = timeline.only(Timeline.Kind.DECISION);
            assertEquals(
                    List.of("NODE_FAULT", "GIVE_UP"),
                    List.of(decision.detail("fault"), decision.level()),
                    timeline.toString());
            assertTrue(timeline.only(Timeline.Kind.GIVE_UP).status() != 0, timeline.toString());
            assertEquals(List.of(1), timeline.launchedAttempts(), timeline.toString());
            assertFalse(output.contains("SRUN_EXIT=0"), output);
            assertFalse(output.contains("attempt=2"), output);
            assertEquals(JobState.COMPLETED, done.state(), output); // the script itself went on and ended well
        } else {
            Job requeued = cluster.waitForJob(jobId, "to be requeued", JOB_END, job -> job.restarts() >= 1);
            assertEquals(1, requeued.restarts());
            // The requeued run may already be appending to the timeline: look at the first run's part.
            Timeline timeline = Timeline.of(cluster, jobId);
            Timeline.Event decision = timeline.all(Timeline.Kind.DECISION).get(0);
            assertEquals(
                    List.of("NODE_FAULT", "REQUEUE_JOB"),
                    List.of(decision.detail("fault"), decision.level()),
                    timeline.toString());
            assertEquals(1, timeline.all(Timeline.Kind.REQUEUE).size(), timeline.toString());
        }
    }

    /**
     * {@code --requeue} everywhere; {@code --requeue=expedite} too where this cluster's Slurm allows
     * it (not offered, rather than skipped, where it does not).
     */
    static Stream<String> requeueOptions() {
        boolean expeditable = new ConfigParser()
                .parse(cluster.run(List.of("scontrol", "show", "config")).stdout())
                .listContains("SlurmctldParameters", "enable_expedited_requeue");
        return expeditable ? Stream.of("--requeue", "--requeue=expedite") : Stream.of("--requeue");
    }

    /**
     * Never worse than Slurm alone: a requeueable 2-node job with no spare and no replacement
     * loses its second node. The supervisor has the node marked FAIL and requeues the job (not
     * failed); its next run starts on healthy nodes, without the killed one, and completes.
     * The first attempt was told the job's nodes and master although it started before the job was read.
     * It is a GPU job with a spare pool configured: Slurm refuses to grow a job holding GRES, so
     * the supervisor says so at the start and goes straight to the requeue, trying no expansion.
     * Submitted with {@code --requeue}, the batch host's agent starts the requeued job at once;
     * submitted with {@code --requeue=expedite} on a release that has it (25.11 on) and allows it
     * ({@code SlurmctldParameters=enable_expedited_requeue}: local-cluster.sh sets it on 26.05),
     * Slurm itself does, and the agent is not asked.
     */
    @ParameterizedTest
    @MethodSource("requeueOptions")
    void aNodeFaultWithNoRepairLeftRequeuesTheJobAndItsNextRunAvoidsTheNode(String requeueOption) {
        boolean expedite = requeueOption.endsWith("=expedite");
        String script = """
                #!/bin/bash
                export AUTORESUME_AGENT_SOCKET=%s AUTORESUME_SPARE_NODES=node4
                srun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c '
                  echo "run=${SLURM_RESTART_COUNT:-0} attempt=$AUTO_RESUME_ATTEMPT node=$SLURMD_NODENAME list=$NODE_LIST mnode=$MASTER_NODE master=$MASTER_ADDR nnodes=$NNODES gpus=${CUDA_VISIBLE_DEVICES-none}"
                  if [ "${SLURM_RESTART_COUNT:-0}" = 0 ]; then touch "$SLURM_JOB_ID.a1.$SLURM_PROCID"; sleep 300; fi'
                echo "SRUN_EXIT=$?"
                """.formatted(agent.socket());
        // No -w: Slurm keeps ReqNodeList across a requeue, and the job would wait for the dead node.
        String jobId = submit(script, "-N2", "--exclusive", "--gpus-per-node=2", requeueOption, "--open-mode=append");
        awaitAttempt(jobId, 1);
        String jobList = truth.jobField(jobId, "NodeList");
        List<String> firstNodes = truth.hostnames(jobList);
        String batchHost = truth.jobField(jobId, "BatchHost");
        String victim = firstNodes.stream()
                .filter(n -> !n.equals(batchHost))
                .findFirst()
                .orElseThrow();
        LocalDateTime fault = LocalDateTime.now().withNano(0); // Slurm's StartTime has whole seconds
        kill(victim);
        Job requeued = cluster.waitForJob(jobId, "to be requeued", Duration.ofSeconds(90), job -> job.restarts() >= 1);
        assertEquals(1, requeued.restarts());
        assertEquals(expedite, requeued.expeditedRequeue(), "Slurm's ExpeditedRequeue flag on the job");
        // Marked FAIL (kept out), then DOWN so that Slurm lets go of the requeued job's dead node at once.
        assertTrue(truth.nodeField(victim, "State").matches(".*(FAIL|DOWN).*"), truth.nodeField(victim, "State"));
        assertTrue(truth.nodeField(victim, "Reason").startsWith("Action:Replace"), truth.nodeField(victim, "Reason"));
        // Slurm would hold the requeued job for its requeue delay (about 2 minutes); the batch host's
        // agent, asked by the supervisor before the requeue, has it start again at once, or Slurm
        // itself does for an expedited one.
        Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(480));
        LocalDateTime again = done.startTime().orElseThrow();
        System.out.println("requeue with no repair left: the batch script ran again "
                + Duration.between(fault, again).toSeconds() + " s after the fault");
        assertTrue(
                !again.isAfter(fault.plus(REQUEUED_RUN_STARTS)),
                "the requeued run started at " + again + ", the fault was at " + fault);
        String output = cluster.jobOutput(jobId);
        assertEquals(JobState.COMPLETED, done.state(), output);
        assertEquals(1, done.restarts(), output);
        List<String> secondNodes = truth.hostnames(done.nodeList());
        assertEquals(2, secondNodes.size(), done.nodeList());
        assertFalse(secondNodes.contains(victim), "the requeued job ran on " + done.nodeList() + " again");
        assertTrue(output.contains("SRUN_EXIT=0"), output);
        for (String node : secondNodes) {
            assertTrue(output.contains("run=1 attempt=1 node=" + node + " "), output);
        }
        assertEquals(
                2,
                output.lines()
                        .filter(l -> l.startsWith("run=1 attempt=1 ") && l.endsWith(" gpus=0,1"))
                        .count(),
                "the requeued run got its GPUs on both nodes: " + output);
        String master = firstNodes.get(0);
        for (String node : firstNodes) {
            assertTrue(
                    output.contains("run=0 attempt=1 node=" + node + " list=" + jobList + " mnode=" + master
                            + " master=" + truth.nodeField(master, "NodeAddr") + " nnodes=2 gpus=0,1\n"),
                    output);
        }
        Timeline timeline = Timeline.of(cluster, jobId);
        // Each run's supervisor says once what the job can fall back on.
        for (Timeline.Event paths : timeline.all(Timeline.Kind.PATHS)) {
            assertEquals(
                    List.of("", "impossible", "true"),
                    List.of(paths.detail("spares"), paths.detail("expansion"), paths.detail("requeue")),
                    timeline.toString());
            assertTrue(paths.detail("noExpansion").contains("GRES"), timeline.toString());
        }
        assertEquals(2, timeline.all(Timeline.Kind.PATHS).size(), timeline.toString());
        assertTrue(timeline.all(Timeline.Kind.REPLACEMENT).isEmpty(), timeline.toString());
        Timeline.Event requeue = timeline.only(Timeline.Kind.REQUEUE);
        assertEquals(
                List.of("node-fault", victim, Boolean.toString(expedite), Boolean.toString(!expedite)),
                List.of(
                        requeue.detail("path"),
                        requeue.faultyNodes(),
                        requeue.detail("expedited"),
                        requeue.detail("agentExpedites")),
                timeline.toString());
        assertTrue(timeline.all(Timeline.Kind.GIVE_UP).isEmpty(), timeline.toString());
        assertEquals(1, timeline.all(Timeline.Kind.SUCCEEDED).size(), timeline.toString());
    }

    @Test
    @Tag(LocalCluster.CPU_ONLY)
    void aJobCancelledWhileRecoveryWaitsIsNotRerunAndLeavesNoDonor() {
        String jobId = waitingForNode2UnderItsOwnName();
        cluster.runAsTestUser(List.of("scancel", jobId));
        Job done = cluster.waitForJobEnd(jobId, JOB_END);
        assertEquals(JobState.CANCELLED, done.state());
        String output = cluster.jobOutput(jobId);
        assertFalse(output.contains("attempt=2"), output);
        assertEquals(List.of(), donorsOf(jobId));
    }

    @Test
    @Tag(LocalCluster.CPU_ONLY)
    void aSupervisorKilledWhileRecoveryWaitsLeavesTheNodeMarkedAndNoDonor() {
        String jobId = waitingForNode2UnderItsOwnName();
        CommandResult pkill = cluster.run(
                List.of("pkill", "-KILL", "-u", cluster.testUser(), "-f", "org.slurmautoresume.cli.Main supervise"));
        assertEquals(0, pkill.exitCode(), "no supervisor to kill: " + pkill.stderr());
        Job done = cluster.waitForJobEnd(jobId, JOB_END);
        String output = cluster.jobOutput(jobId);
        assertTrue(output.contains("SRUN_EXIT=137"), output);
        assertFalse(output.contains("attempt=2"), output);
        assertEquals(JobState.COMPLETED, done.state(), output);
        assertEquals(List.of(), donorsOf(jobId));
        // Left for the platform (or `autoresume sweep`): the node stays marked for replacement.
        assertTrue(truth.nodeField("node2", "State").contains("FAIL"), truth.nodeField("node2", "State"));
        assertTrue(truth.nodeField("node2", "Reason").startsWith("Action:Replace"), truth.nodeField("node2", "Reason"));
    }
}
