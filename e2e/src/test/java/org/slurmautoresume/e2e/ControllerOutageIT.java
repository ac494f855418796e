package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * Recovery through a slurmctld outage, phase by phase: slurmctld is stopped with its
 * state saved, as for an upgrade, at one phase of a recovery, and started again 15 s later. Each
 * test asserts from Slurm's own state and the job's timeline that the step ran again on healthy
 * nodes, the job completed, and no node but the dead one was marked. The jobs hold an in-job
 * spare, on the GPU-shaped cluster (PrologFlags=Contain), as the users' jobs do.
 */
class ControllerOutageIT {

    private static final Duration FIRST_START = Duration.ofSeconds(240);
    /** As long as a controller restart for an upgrade takes on a small cluster. */
    private static final Duration OUTAGE = Duration.ofSeconds(15);

    private static final String PREFIX = "86-controller-outage-it-";
    /**
     * The supervisor's own phases, each meeting an outage: run on the oldest release only, as the
     * other whole-suite classes of our own logic are (e2e/pom.xml's profiles of the newer releases).
     */
    static final String EACH_PHASE = "each-phase";

    private static LocalCluster cluster;
    private static SlurmTruth truth;
    private static SupervisedSteps supervised;

    @BeforeAll
    static void startAgentAndPlugin() {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
        supervised = SupervisedSteps.start(cluster, PREFIX);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        try {
            cluster.startController();
        } finally {
            SupervisedSteps.stop(supervised);
        }
    }

    /**
     * Phase "detection": slurmctld is stopped before the node dies, so the probes find it while
     * the controller is away and every later phase waits for it.
     */
    @Test
    void aNodeThatDiesWhileSlurmctldIsAwayIsReplacedOnceItAnswers() throws Exception {
        String jobId = supervised.stepWithSpare(cluster, FIRST_START);
        try {
            waitUntilWatched(jobId);
            Instant[] killed = new Instant[1];
            Outage outage = slurmctldAway(() -> killed[0] = killNode2());
            // Not surely met: the supervisor's only Slurm calls in this phase are the node-state reads
            // before the detection, which overlap the controller's stop; one that reached the stopping
            // controller can wait and be answered after the restart without ever failing (seen on
            // 24.11 in CI and in 1 of 3 runs by hand), and after the detection the supervisor waits
            // for the agent's mark, not for Slurm.
            assertReplacedAfterTheOutage(jobId, "detection", killed[0], outage, false);
        } finally {
            putBack(jobId);
        }
    }

    /**
     * Detection without slurmctld from the step's start: the supervisor pauses
     * before it first asks Slurm for the step srun created, slurmctld is stopped and node2 killed,
     * so Slurm never named the step before the fault. The step's nodes are known from the in-job
     * spares plan and their records were read when the supervisor started: the probes find node2
     * during the outage, and the recovery goes on once slurmctld answers.
     */
    @Test
    void aNodeThatDiesBeforeSlurmctldNamedTheStepIsFoundWhileItIsAway() throws Exception {
        PhasePauses pauses = new PhasePauses(cluster, PREFIX + "lookup", List.of("lookup"));
        String jobId = supervised.stepWithSpare(cluster, FIRST_START, pauses.scriptLine());
        try {
            pauses.awaitPause(jobId, "lookup");
            Instant[] killed = new Instant[1];
            Outage outage = slurmctldAway(() -> {
                killed[0] = killNode2();
                pauses.release("lookup");
            });
            assertReplacedAfterTheOutage(jobId, "lookup", killed[0], outage, phaseMetSurely("lookup"));
            Timeline timeline = Timeline.of(cluster, jobId);
            Timeline.Event detection = timeline.all(Timeline.Kind.DETECTION).get(0);
            // Found by the probes during the outage; the event itself is written once the lookup,
            // which rides the outage, has the step to act on.
            assertTrue(
                    Instant.parse(detection.detail("foundAt")).isBefore(outage.back()),
                    "node2 was found while slurmctld was away: " + timeline);
            assertEquals("node2", detection.detail("nodes"), timeline.toString());
        } finally {
            pauses.cleanUp();
            putBack(jobId);
        }
    }

    /**
     * One later phase of the same recovery: the supervisor stops at its start (a test pause,
     * {@code AUTORESUME_TEST_PAUSE_AT}), slurmctld is stopped with its state saved, the phase goes
     * on into the outage, and slurmctld starts again 15 s later. In a dead node's recovery the
     * phases come in this order: the agent's diagnosis and mark, the shrink, the supervisor's
     * read of the evidence after the attempt ended, the choice of the spare, the re-run.
     */
    @ParameterizedTest(name = "slurmctld away at {0}")
    @MethodSource("recoveryPhases")
    @Tag(EACH_PHASE)
    void aPhaseThatMeetsAnOutageWaitsForSlurmctldAndTheRecoveryCompletes(String phase) throws Exception {
        PhasePauses pauses = new PhasePauses(cluster, PREFIX + phase, List.of(phase));
        String jobId = supervised.stepWithSpare(cluster, FIRST_START, pauses.scriptLine());
        try {
            waitUntilWatched(jobId);
            Instant killed = killNode2();
            pauses.awaitPause(jobId, phase);
            Outage outage = slurmctldAway(() -> pauses.release(phase));
            assertReplacedAfterTheOutage(jobId, phase, killed, outage, phaseMetSurely(phase));
        } finally {
            pauses.cleanUp();
            putBack(jobId);
        }
    }

    static List<String> recoveryPhases() {
        return PhasePauses.RECOVERY_ORDER;
    }

    /**
     * The step ran again on the spare and the job completed, only node2 was marked, and the
     * outage was told (when the supervisor surely met it); prints the phase's figures.
     */
    private static void assertReplacedAfterTheOutage(
            String jobId, String phase, Instant killed, Outage outage, boolean surely) {
        Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
        String output = cluster.jobOutput(jobId);
        assertEquals(JobState.COMPLETED, done.state(), output);
        assertTrue(output.contains("SRUN_EXIT=0"), output);
        // The re-run on the spare; srun may first be refused while the nodes re-register (NOT_STARTED).
        assertTrue(output.contains(" node=node3 list=node[1,3] mnode=node1\n"), output);
        assertOnlyNode2Marked();
        assertEquals("node[1,3]", truth.jobField(jobId, "NodeList"), "node2 left the job");
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals("node2", timeline.only(Timeline.Kind.REPLACEMENT).faultyNodes(), timeline.toString());
        assertEquals("NODE_FAULT", timeline.outcomes().get(0), timeline.toString());
        timeline.assertSucceededAfterOnlyUnstarted(1);
        assertControllerOutageTold(timeline, surely);
        Instant rerun = timeline.last(Timeline.Kind.LAUNCH).at();
        System.out.printf(
                "fault-matrix: class=slurmctld-away-at-%s detected_ms=%d running_again_ms=%d source=%s outcome=%s%n",
                phase,
                Duration.between(
                                killed,
                                timeline.all(Timeline.Kind.DETECTION).get(0).at())
                        .toMillis(),
                Duration.between(killed, rerun).toMillis(),
                timeline.all(Timeline.Kind.DETECTION).get(0).details().getOrDefault("source", "?"),
                done.state());
        // One line for benchmarks/scripts/outage-recovery.sh: the step's re-run, counted from when slurmctld served
        // again.
        System.out.printf(
                "outage-recovery: phase=%s outage_ms=%d running_again_after_back_ms=%d%n",
                phase,
                Duration.between(outage.stopped(), outage.back()).toMillis(),
                Duration.between(outage.back(), rerun).toMillis());
    }

    /** When slurmctld was stopped, and when it served requests again. */
    private record Outage(Instant stopped, Instant back) {}

    @FunctionalInterface
    private interface DuringOutage {
        void run() throws Exception;
    }

    /**
     * slurmctld stopped with its state saved, {@code during} done while it is away, and started
     * again {@link #OUTAGE} later; returns once it serves requests.
     */
    private static Outage slurmctldAway(DuringOutage during) throws Exception {
        Instant stopped = Instant.now();
        cluster.stopController();
        try {
            during.run();
            Thread.sleep(OUTAGE.toMillis()); // the outage itself, not a wait for a condition
        } finally {
            cluster.startController();
        }
        return new Outage(stopped, Instant.now());
    }

    private static Instant killNode2() {
        Instant killed = Instant.now();
        cluster.killNode("node2");
        return killed;
    }

    /**
     * Whether the supervisor's own Slurm calls surely met the outage: at the mark only the agent
     * does (the supervisor may find the controller back when it reads again). With a backup in
     * standby clients wait (SlurmctldTimeout/2) instead of failing, so nothing is sure. (At
     * detection the calls overlap the stop itself: see that test.)
     */
    private static boolean phaseMetSurely(String phase) {
        return !phase.equals("mark") && !backupConfigured();
    }

    private static void putBack(String jobId) {
        cluster.startController();
        cluster.run(List.of("scancel", jobId));
        cluster.reviveNode("node2");
        cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
    }

    /**
     * Phase "step start": the supervised srun starts while slurmctld is away. Without a backup
     * srun fails at once and the supervisor starts it again once slurmctld answers; with a backup
     * in standby srun itself waits. Either way the step runs once, and ends at once.
     */
    @Test
    void aStepStartedWhileSlurmctldIsAwayRunsOnceItAnswers() throws Exception {
        String jobId = supervised.submitStepWithSpare(
                cluster, "while [ ! -e \"$SLURM_JOB_ID.go\" ]; do sleep 0.2; done", false);
        try {
            Wait.until(
                    "job " + jobId + " to run",
                    FIRST_START,
                    () -> truth.jobField(jobId, "JobState").equals("RUNNING") ? Optional.of(true) : Optional.empty());
            slurmctldAway(() -> cluster.writeJobsFile(jobId + ".go", "", "rw-r--r--"));
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            String output = cluster.jobOutput(jobId);
            Timeline timeline = Timeline.of(cluster, jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("SRUN_EXIT=0"), output);
            // The step ran, once, on the step's own nodes.
            assertTrue(output.contains(" node=node1 list=node[1-2] mnode=node1\n"), output);
            assertEquals(
                    1,
                    output.lines().filter(l -> l.contains(" node=node1 list=")).count(),
                    output);
            timeline.assertSucceededAfterOnlyUnstarted(0);
            assertTrue(timeline.all(Timeline.Kind.DECISION).isEmpty(), "no restart budget spent: " + timeline);
            assertControllerOutageTold(timeline, !backupConfigured());
            assertOnlyNode2Marked();
        } finally {
            cluster.startController();
            cluster.run(List.of("scancel", jobId));
        }
    }

    /** The supervisor reads the step's nodes before probing them: stop slurmctld only once it did. */
    private static void waitUntilWatched(String jobId) {
        Timeline.awaitWatch(cluster, jobId, Duration.ofSeconds(30));
    }

    private static void assertOnlyNode2Marked() {
        for (String node : List.of("node1", "node3", "node4")) {
            String state = truth.nodeField(node, "State");
            assertFalse(
                    state.contains("FAIL") || state.contains("DOWN") || state.contains("DRAIN"), node + " " + state);
        }
    }

    /** Whether an earlier class (ControlPlaneIT) left the cluster with a backup controller. */
    private static boolean backupConfigured() {
        return cluster.run(List.of("scontrol", "ping")).stdout().contains("Slurmctld(backup)");
    }

    /**
     * An outage the supervisor met is told once each way and never given up on; {@code surely}:
     * the supervisor must have met it (else it may have, when its own calls fell in the outage).
     */
    private static void assertControllerOutageTold(Timeline timeline, boolean surely) {
        List<String> states = timeline.all(Timeline.Kind.CONTROLLER).stream()
                .map(e -> e.detail("state"))
                .toList();
        if (surely || !states.isEmpty()) {
            assertEquals(List.of("unreachable", "answers"), states, timeline.toString());
        }
    }
}
