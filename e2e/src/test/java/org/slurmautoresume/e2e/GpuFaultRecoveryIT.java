package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;

/**
 * The most common fault of large training runs: a GPU fails on a node that stays up. The node's
 * own agent sees the driver's Xid 79 in that node's kernel log and marks it at once; the
 * training tasks there then die (as CUDA errors kill them) while its slurmd keeps answering.
 * The supervisor finds the node marked, takes the node-fault path, and re-runs the step on the
 * survivor and the job's spare; the job completes, and the node keeps the reason its agent wrote.
 * Once on node2, and once on node1: the master node, which is also the batch host and so cannot
 * leave the job, yet the step moves off it and the spare becomes the master.
 */
class GpuFaultRecoveryIT {

    private static final Duration FIRST_START = Duration.ofSeconds(300);
    private static final String PREFIX = "85-gpu-fault-it-";
    /** As long as a controller restart for an upgrade takes on a small cluster (ControllerOutageIT's). */
    private static final Duration OUTAGE = Duration.ofSeconds(15);

    private static LocalCluster cluster;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.get();
    }

    @ParameterizedTest
    @ValueSource(strings = {"node2", "node1"})
    void aGpuFaultOnALiveNodeMovesTheStepToTheSpare(String victim) throws Exception {
        // The agent the job's supervisor talks to is the victim's own, watching its kernel log.
        SupervisedSteps supervised = watchingItsKernelLog(victim);
        String jobId = null; // the agent is stopped even when the job never starts
        try {
            jobId = supervised.stepWithSpare(cluster, FIRST_START);
            long injected = System.nanoTime();
            Instant xidAt = Instant.now();
            cluster.gpuFault(victim, 79);
            Wait.until(
                    victim + "'s agent to mark it",
                    Duration.ofSeconds(30),
                    () -> cluster.node(victim).state().isFail() ? Optional.of(true) : Optional.empty());
            long markedMs = (System.nanoTime() - injected) / 1_000_000;
            cluster.crashTask(victim);
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("SRUN_EXIT=0"), output);
            // Survivors keep their places; the spare takes the victim's, and with node1 the master's.
            String stepNodes = victim.equals("node2") ? "node[1,3]" : "node[3,2]";
            String master = victim.equals("node2") ? "node1" : "node3";
            for (String node : victim.equals("node2") ? List.of("node1", "node3") : List.of("node2", "node3")) {
                assertTrue(
                        output.contains("attempt=2 node=" + node + " list=" + stepNodes + " mnode=" + master + "\n"),
                        output);
            }
            assertFalse(output.contains("attempt=2 node=" + victim), output);
            Node marked = cluster.node(victim);
            assertTrue(marked.state().isFail(), marked.state().display());
            assertFalse(
                    marked.state().notResponding(),
                    victim + " stayed up: " + marked.state().display());
            String reason = marked.reason().map(NodeReason::text).orElse("");
            assertTrue(
                    reason.startsWith("Action:Reboot Xid 79 GPU PCI:0000:3b:00"),
                    "the agent's evidence kept: " + reason);
            for (String other : List.of("node1", "node2", "node3", "node4")) {
                assertTrue(
                        other.equals(victim) || !cluster.node(other).state().isFail(),
                        other + " " + cluster.node(other).state().display());
            }
            Timeline timeline = Timeline.of(cluster, jobId);
            Timeline.Event replacement = timeline.only(Timeline.Kind.REPLACEMENT);
            assertEquals(
                    List.of("in-job-spare", victim, stepNodes),
                    List.of(replacement.detail("path"), replacement.faultyNodes(), replacement.detail("stepNodes")),
                    timeline.toString());
            assertEquals(List.of(1, 2), timeline.launchedAttempts(), timeline.toString());
            FaultMatrix.row(
                    victim.equals("node1") ? "gpu-fault-master" : "gpu-fault",
                    xidAt,
                    timeline,
                    done.state().name());
            System.out.printf(
                    "GPU fault on live %s: marked %d ms after the Xid, re-run %d ms after the failed" + " step ended%n",
                    victim, markedMs, replacement.latency());
        } finally {
            putBack(jobId, victim, supervised);
        }
    }

    /**
     * Diagnose before deciding: every rank dies at once (as when a framework aborts all ranks on
     * a CUDA error) before the driver's Xid reaches node2's agent, so the attempt ends as a plain
     * application failure on nodes Slurm calls healthy. Before settling that, the supervisor asks
     * the step nodes' agents; node2's marks its node meanwhile and says so, and the failure is
     * taken as node2's fault: the step runs again on node1 and the spare.
     */
    @Test
    void aFailureBeforeTheXidReachedTheAgentIsStillTakenAsTheNodesFault() throws Exception {
        SupervisedSteps supervised = watchingItsKernelLog("node2");
        String jobId = null; // the agent is stopped even when the job never starts
        try {
            jobId = supervised.stepWithSpare(cluster, FIRST_START);
            cluster.crashTask("node2");
            cluster.crashTask("node1");
            cluster.gpuFault("node2", 79);
            // The Xid came after every rank had died: the agent's word tells, asked after the failure, or
            // its own mark, when its Xid watch marked node2 before the supervisor looked at the failure.
            Timeline timeline = completedOnTheSpareByNode2sAgentsWord(jobId, Set.of("agent-verdict", "attempt-end"));
            assertEquals(List.of(1, 2), timeline.launchedAttempts(), timeline.toString());
        } finally {
            putBack(jobId, "node2", supervised);
        }
    }

    /**
     * A GPU fault while slurmctld is away (restarted for an upgrade): node2's GPU fails
     * and its task dies while the controller is stopped, so node2's agent cannot mark it yet and
     * the supervisor cannot read Slurm. The agent's mark keeps trying (--controller-outage) and
     * lands once slurmctld answers again; the supervisor then finds node2 out of service and the
     * step runs again on the spare, instead of the fault being lost with the first failed mark.
     */
    @Test
    void aGpuFaultWhileSlurmctldIsAwayIsMarkedOnceItAnswersAndTheStepMovesToTheSpare() throws Exception {
        SupervisedSteps supervised = watchingItsKernelLog("node2");
        String jobId = null; // the agent is stopped even when the job never starts
        try {
            jobId = supervised.stepWithSpare(cluster, FIRST_START);
            Timeline.awaitWatch(cluster, jobId, Duration.ofSeconds(30));
            // The agent's own count, not its audit line: that is written once the mark is settled, and
            // Slurm 24.11's scontrol keeps trying to reach slurmctld where 22.05's gives up at once.
            String resets = "autoresume_agent_xids_total{class=\"reset\"}";
            double before = LocalAgent.sample(supervised.agent().scrapeMetrics(), resets);
            cluster.stopController();
            try {
                cluster.gpuFault("node2", 79);
                cluster.crashTask("node2", jobId);
                Thread.sleep(OUTAGE.toMillis()); // the outage itself, not a wait for a condition
                assertEquals(
                        before + 1,
                        LocalAgent.sample(supervised.agent().scrapeMetrics(), resets),
                        1e-9,
                        "node2's agent saw the Xid during the outage");
            } finally {
                cluster.startController();
            }
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("SRUN_EXIT=0"), output);
            // The re-run on the spare; srun may first be refused while the nodes re-register (NOT_STARTED).
            assertTrue(output.contains(" node=node3 list=node[1,3] mnode=node1\n"), output);
            Node marked = cluster.node("node2");
            assertTrue(marked.state().isFail(), marked.state().display());
            String reason = marked.reason().map(NodeReason::text).orElse("");
            assertTrue(reason.startsWith("Action:Reboot Xid 79 GPU PCI:0000:3b:00"), "the agent's own mark: " + reason);
            assertNoNodeButNode2Failed();
            Timeline timeline = Timeline.of(cluster, jobId);
            assertEquals(
                    List.of("in-job-spare", "node2"),
                    List.of(
                            timeline.only(Timeline.Kind.REPLACEMENT).detail("path"),
                            timeline.only(Timeline.Kind.REPLACEMENT).faultyNodes()),
                    timeline.toString());
            assertEquals("NODE_FAULT", timeline.outcomes().get(0), timeline.toString());
            // Found through Slurm's record of node2 once its agent's mark landed, not through its slurmd.
            Timeline.Event ended = timeline.all(Timeline.Kind.ATTEMPT_ENDED).get(0);
            assertTrue(ended.detail("reason").startsWith("Slurm took node2 "), timeline.toString());
            assertEquals(
                    "node-state", timeline.all(Timeline.Kind.DETECTION).get(0).detail("source"), timeline.toString());
            timeline.assertSucceededAfterOnlyUnstarted(1);
        } finally {
            cluster.startController();
            putBack(jobId, "node2", supervised);
        }
    }

    /**
     * A fault the kernel log the agents follow does not show (their Xid watch is off), found by
     * the agent's periodic GPU checks on node2's stand-in tools: Xid 48 leaves an uncorrected ECC
     * error with a page retirement pending, which nvidia-smi (and DCGM) report; Xid 74, an
     * NVLink error, shows only in DCGM's health watches, nvidia-smi's queries staying clean.
     * node2's agent finds it, confirms it one check later and marks node2 for a reboot with the
     * check's evidence; the step moves to the spare. node1's agent, checking its own sound GPUs
     * the same way, leaves node1 alone.
     */
    @ParameterizedTest(name = "Xid {0}, found by the {1} check")
    @CsvSource(
            delimiter = ';',
            value = {
                "48;gpu;Action:Reboot gpu check: GPU 0 (00000000:3B:00.0): 1 uncorrected ECC errors;gpu-fault-smi-only",
                "74;dcgm;Action:Reboot dcgm check: DCGM health Failure;gpu-fault-dcgm-only"
            })
    void aFaultTheKernelLogDoesNotShowIsFoundByTheAgentsGpuCheck(
            int xid, String check, String reasonStart, String matrixRow) throws Exception {
        GpuCheckingAgents agents = GpuCheckingAgents.start(1);
        String jobId = null;
        try {
            jobId = agents.supervised.stepWithSpare(cluster, FIRST_START);
            long injected = System.nanoTime();
            Instant faultAt = Instant.now();
            cluster.gpuFault("node2", xid);
            Wait.until(
                    "node2's agent to mark it",
                    Duration.ofSeconds(30),
                    () -> cluster.node("node2").state().isFail() ? Optional.of(true) : Optional.empty());
            long markedMs = (System.nanoTime() - injected) / 1_000_000;
            String reason = cluster.node("node2").reason().map(NodeReason::text).orElse("");
            assertTrue(reason.startsWith(reasonStart), "the " + check + " check's evidence in the reason: " + reason);
            // The fault kills node2's task too, unless the supervisor, finding node2 taken out of
            // service, has already ended the step.
            cluster.crashTaskIfRunning("node2");
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("attempt=2 node=node3 list=node[1,3]"), output);
            Timeline timeline = Timeline.of(cluster, jobId);
            assertEquals(
                    List.of("in-job-spare", "node2"),
                    List.of(
                            timeline.only(Timeline.Kind.REPLACEMENT).detail("path"),
                            timeline.only(Timeline.Kind.REPLACEMENT).faultyNodes()),
                    timeline.toString());
            // node1's agent ran the same check on its sound GPUs all along, and marked nothing.
            double checked = LocalAgent.sample(
                    agents.node1.scrapeMetrics(),
                    "autoresume_agent_gpu_checks_total{check=\"" + check + "\",result=\"passed\"}");
            assertTrue(checked >= 2, "node1's agent ran its " + check + " check " + checked + " times");
            assertNoNodeButNode2Failed();
            FaultMatrix.row(matrixRow, faultAt, timeline, done.state().name());
            System.out.printf(
                    "Xid %d on node2, found by the %s check: marked %d ms after the fault%n", xid, check, markedMs);
        } finally {
            agents.stop(jobId);
        }
    }

    /**
     * Diagnose before deciding, with a check no watch has run yet: node2's NVLink fails (Xid 74,
     * which only DCGM's health watches show) and every rank dies of it at once. The agents' Xid
     * watch is off and their GPU checks run every 10 minutes, so no agent has seen the fault when
     * the attempt ends. The supervisor, settling what looks like an application failure, asks
     * every step node's agent on its fresh-check port; node2's agent runs its checks now, finds
     * DCGM's failure, confirms it and marks node2, and the step moves to the spare instead of the
     * job ending FAILED (no application retries are configured).
     */
    @Test
    void aFaultNoCheckHadSeenIsFoundByTheFreshCheckTheFailedAttemptAsksFor() throws Exception {
        GpuCheckingAgents agents = GpuCheckingAgents.start(600);
        String jobId = null;
        try {
            jobId = agents.supervised.stepWithSpare(cluster, FIRST_START);
            cluster.gpuFault("node2", 74);
            Instant crashed = Instant.now();
            // The framework aborts every rank on node2's CUDA error.
            cluster.crashTask("node2");
            cluster.crashTask("node1");
            Timeline timeline = completedOnTheSpareByNode2sAgentsWord(jobId, Set.of("agent-verdict"));
            Timeline.Event detection = timeline.only(Timeline.Kind.DETECTION);
            // Diagnosed within the supervisor's bound for asking (3 s) after the ranks died, and the
            // step on the spare soon after.
            Duration diagnosed = Duration.between(crashed, detection.at());
            Duration runningAgain = Duration.between(
                    crashed, timeline.last(Timeline.Kind.LAUNCH).at());
            assertTrue(diagnosed.compareTo(Duration.ofSeconds(5)) <= 0, "diagnosed " + diagnosed + " after the crash");
            String reason = cluster.node("node2").reason().map(NodeReason::text).orElse("");
            assertTrue(reason.startsWith("Action:Reboot dcgm check: DCGM health Failure"), reason);
            assertNoNodeButNode2Failed();
            FaultMatrix.row("gpu-fault-fresh-check", crashed, timeline, JobState.COMPLETED.name());
            System.out.printf(
                    "fresh check: node2 diagnosed %d ms after its ranks were killed, the step running again"
                            + " at %d ms%n",
                    diagnosed.toMillis(), runningAgain.toMillis());
        } finally {
            agents.stop(jobId);
        }
    }

    /**
     * A GPU fault that hangs the collective instead of killing the task: node2's NVLink fails (Xid
     * 74, which only DCGM shows) and every rank stops making progress (`hang-step`: all tasks
     * stopped). The job's heartbeat (steady timeout 4 s) finds the hang and its rule ends the step;
     * before the rule's own decision (re-run in place), the supervisor asks every step node's agent
     * for a fresh check, node2's agent finds DCGM's failure and marks node2, and the step moves to
     * the spare as after any node fault, instead of hanging again on node2. The second attempt
     * beats a few times and ends: the supervisors' agent then counts the job's goodput, with time
     * lost to the hang's detection and to the recovery, the relaunched attempt's kept work as
     * productive, and (no checkpoint rule) the first attempt's work as unattributed.
     */
    @Test
    void aCollectiveHungByAGpuFaultIsDiagnosedAndTheStepMovesToTheSpare() throws Exception {
        GpuCheckingAgents agents = GpuCheckingAgents.start(600);
        String jobId = null;
        try {
            Path config = cluster.writeJobsFile(
                    PREFIX + "heartbeat-" + ProcessHandle.current().pid() + ".yaml", """
                    runPolicy:
                      heartbeat: {startupTimeoutSeconds: 120, steadyTimeoutSeconds: 4, checkpointTimeoutSeconds: 30}
                    """, "rw-r--r--");
            String script = """
                    #!/bin/bash
                    export AUTORESUME_AGENT_SOCKET=%s AUTORESUME_CONFIG=%s
                    srun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c '
                      echo "attempt=$AUTO_RESUME_ATTEMPT node=$SLURMD_NODENAME list=$NODE_LIST mnode=$MASTER_NODE"
                      if [ "$AUTO_RESUME_ATTEMPT" = 1 ]; then
                        touch "$SLURM_JOB_ID.up.$SLURMD_NODENAME"
                        while true; do echo AUTORESUME_HEARTBEAT; sleep 0.5; done
                      fi
                      for beat in 1 2 3 4 5 6; do echo AUTORESUME_HEARTBEAT; sleep 0.5; done'
                    echo "SRUN_EXIT=$?"
                    """.formatted(agents.supervised.agent().socket(), config);
            String id = cluster.submit(script, List.of("-N3", "-w", "node[1-3]", "--exclusive"));
            jobId = id;
            SupervisedSteps.awaitFirstAttempt(cluster, id, FIRST_START);
            cluster.gpuFault("node2", 74);
            Instant hung = Instant.now();
            assertTrue(cluster.hangStep(id).succeeded(), "every rank stopped");
            Job done = cluster.waitForJobEnd(id, Duration.ofSeconds(180));
            String output = cluster.jobOutput(id);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("attempt=2 node=node3 list=node[1,3]"), output);
            Timeline timeline = Timeline.of(cluster, id);
            List<Timeline.Event> detections = timeline.all(Timeline.Kind.DETECTION);
            assertEquals(
                    List.of("log-rule", "agent-verdict"),
                    detections.stream().map(e -> e.detail("source")).toList(),
                    "the heartbeat found the hang, the agents' checks the node: " + timeline);
            assertEquals("node2", detections.get(1).detail("nodes"), timeline.toString());
            assertEquals("node2", timeline.only(Timeline.Kind.REPLACEMENT).faultyNodes(), timeline.toString());
            String reason = cluster.node("node2").reason().map(NodeReason::text).orElse("");
            assertTrue(reason.startsWith("Action:Reboot dcgm check: DCGM health Failure"), reason);
            assertNoNodeButNode2Failed();
            assertGoodputCounted(agents.supervised.agent(), detections.get(0));
            FaultMatrix.row("gpu-hang-heartbeat", hung, timeline, done.state().name());
        } finally {
            agents.stop(jobId);
        }
    }

    /**
     * The job's goodput as the agent counted it from the supervisor's reports: the last one is sent
     * as the step ends, so it is waited for. Detection is the heartbeat rule's own latency (last beat
     * to detection); the relaunched attempt beat for about 3 s after its first beat.
     */
    private static void assertGoodputCounted(LocalAgent agent, Timeline.Event heartbeatDetection) {
        String scrape =
                Wait.until("the agent to count the second attempt's productive time", Duration.ofSeconds(30), () -> {
                    String text = agent.scrapeMetrics();
                    return LocalAgent.sample(text, "autoresume_jobs_productive_seconds_total") > 0
                            ? Optional.of(text)
                            : Optional.empty();
                });
        double detection = LocalAgent.sample(scrape, "autoresume_jobs_lost_seconds_total{cause=\"detection\"}");
        double recovery = LocalAgent.sample(scrape, "autoresume_jobs_lost_seconds_total{cause=\"recovery\"}");
        double restart = LocalAgent.sample(scrape, "autoresume_jobs_lost_seconds_total{cause=\"restart\"}");
        double productive = LocalAgent.sample(scrape, "autoresume_jobs_productive_seconds_total");
        double unattributed = LocalAgent.sample(scrape, "autoresume_jobs_unattributed_seconds_total");
        System.out.printf(
                java.util.Locale.ROOT,
                "goodput of the hung collective's job: productive %.3f s; lost: detection %.3f s, recovery %.3f s,"
                        + " restart %.3f s; unattributed %.3f s%n",
                productive,
                detection,
                recovery,
                restart,
                unattributed);
        // The rule's own latency, less any of it before the attempt's launch was written: the rules
        // watch from srun's start, and a beat a few ms before the launch event counts from the
        // launch (the time before it is the previous attempt's recovery, never counted twice).
        double latency = heartbeatDetection.latency() / 1000.0;
        assertTrue(detection <= latency + 0.002 && detection >= latency - 0.1, latency + " s: " + scrape);
        assertTrue(detection >= 4, "the steady timeout is 4 s: " + scrape);
        assertTrue(recovery > 0, "detection to relaunch: " + scrape);
        assertTrue(restart > 0, "relaunch to the first beat: " + scrape);
        assertTrue(productive > 1 && productive < 10, "the second attempt beat for about 3 s: " + scrape);
        // Without a checkpoint rule the first attempt's work (launch to its last beat) may all be
        // redone, so it is unattributed; none where its only beat came before the launch was written
        // (seen on 24.11: unattributed 0, detection 19 ms short of the rule's latency).
        assertTrue(unattributed >= 0 && unattributed < 10, "the first attempt's work: " + scrape);
        assertEquals(0.0, LocalAgent.sample(scrape, "autoresume_jobs_lost_seconds_total{cause=\"redone\"}"), scrape);
    }

    /**
     * The supervisors' agent, bound to node2, and node1's own, both with the Xid watch off and
     * their GPU checks every few seconds on their node's stand-in tools, over sound GPUs; node1's
     * serves its metrics.
     */
    private static final class GpuCheckingAgents {
        private final SupervisedSteps supervised;
        private final LocalAgent node1;

        private GpuCheckingAgents(SupervisedSteps supervised, LocalAgent node1) {
            this.supervised = supervised;
            this.node1 = node1;
        }

        static GpuCheckingAgents start(int everySeconds) throws InterruptedException {
            for (String node : List.of("node1", "node2")) {
                assertTrue(cluster.gpuRepair(node).succeeded(), "sound GPUs to begin with"); // whatever ran before
            }
            String every = Integer.toString(everySeconds);
            SupervisedSteps supervised = SupervisedSteps.start(
                    cluster,
                    PREFIX,
                    "--node",
                    "node2",
                    "--xid-source",
                    "off",
                    "--gpu-check-every",
                    every,
                    "--gpu-tools",
                    cluster.gpuTools("node2").toString(),
                    "--metrics-listen",
                    "127.0.0.1:0");
            try {
                return new GpuCheckingAgents(
                        supervised,
                        LocalAgent.start(
                                cluster,
                                supervised.plugstack().installDir().resolve("agent-node1"),
                                "--node",
                                "node1",
                                "--xid-source",
                                "off",
                                "--gpu-check-every",
                                every,
                                "--gpu-tools",
                                cluster.gpuTools("node1").toString(),
                                "--metrics-listen",
                                "127.0.0.1:0"));
            } catch (RuntimeException | Error e) {
                SupervisedSteps.stop(supervised);
                throw e;
            }
        }

        /** The job cancelled, node2's GPUs repaired and the node resumed, both agents and the plugin gone. */
        void stop(String jobId) throws InterruptedException {
            node1.stop();
            putBack(jobId, "node2", supervised);
        }
    }

    /**
     * The job completed, its step re-run on the spare node3 after a first attempt that ended as
     * node2's fault on node2's agent's word, asked after the attempt failed; its timeline.
     */
    /** @param sources what may have found node2's fault: the supervisor's question, or Slurm's record at the end */
    private static Timeline completedOnTheSpareByNode2sAgentsWord(String jobId, Set<String> sources) {
        Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
        String output = cluster.jobOutput(jobId);
        assertEquals(JobState.COMPLETED, done.state(), output);
        assertTrue(output.contains("attempt=2 node=node3 list=node[1,3]"), output);
        Timeline timeline = Timeline.of(cluster, jobId);
        Timeline.Event detection = timeline.only(Timeline.Kind.DETECTION);
        assertEquals(
                "NODE_FAULT", timeline.all(Timeline.Kind.ATTEMPT_ENDED).get(0).detail("outcome"), timeline.toString());
        assertTrue(sources.contains(detection.detail("source")), timeline.toString());
        assertEquals("node2", detection.detail("nodes"), timeline.toString());
        return timeline;
    }

    /** Nodes 1, 3 and 4 are not FAIL: whatever marked node2 marked no healthy node. */
    private static void assertNoNodeButNode2Failed() {
        for (String other : List.of("node1", "node3", "node4")) {
            assertFalse(
                    cluster.node(other).state().isFail(),
                    other + " " + cluster.node(other).state().display());
        }
    }

    /** The plugin, and as the supervisors' agent the agent of {@code node}, watching that node's kernel log. */
    private static SupervisedSteps watchingItsKernelLog(String node) {
        return SupervisedSteps.start(
                cluster,
                PREFIX,
                "--node",
                node,
                "--xid-source",
                cluster.kernelLog(node).toString(),
                "--metrics-listen",
                "127.0.0.1:0");
    }

    /** The job cancelled, {@code node}'s GPUs repaired and the node resumed, the agent and plugin gone. */
    private static void putBack(String jobId, String node, SupervisedSteps supervised) throws InterruptedException {
        if (jobId != null) {
            cluster.run(List.of("scancel", jobId));
        }
        cluster.gpuRepair(node);
        cluster.run(List.of("scontrol", "update", "nodename=" + node, "state=resume"));
        SupervisedSteps.stop(supervised);
    }
}
