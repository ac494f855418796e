package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * The root agent, and separately slurmdbd, away at each phase of one recovery
 * (slurmctld's own matrix is ControllerOutageIT): node2 dies under a step with an in-job spare, and
 * the supervisor stops at each phase in turn (mark, shrink, diagnosis, replacement, re-run; a test
 * pause); at each the component is stopped, the phase let go on, and the component started again
 * 15 s later. The recovery completes on the spare with node2 alone marked: the agent is waited for
 * where it is needed (the mark), and nothing waits for accounting.
 */
class PhaseOutageIT {

    private static final Duration FIRST_START = Duration.ofSeconds(300);
    /** As long as a daemon's restart takes, for an upgrade, on a small cluster. */
    private static final Duration AWAY = Duration.ofSeconds(15);

    private static final String PREFIX = "86-phase-outage-it-";
    private static LocalCluster cluster;
    private static SlurmTruth truth;
    private static SupervisedSteps supervised;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
        supervised = SupervisedSteps.start(cluster, PREFIX);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        SupervisedSteps.stop(supervised);
    }

    @ParameterizedTest(name = "{0} away at each phase")
    @ValueSource(strings = {"agent", "slurmdbd"})
    void theRecoveryCompletesWithTheComponentAwayAtEachPhaseInTurn(String component) throws Exception {
        PhasePauses pauses = new PhasePauses(cluster, PREFIX + component, PhasePauses.RECOVERY_ORDER);
        String jobId = supervised.stepWithSpare(cluster, FIRST_START, pauses.scriptLine());
        boolean away = false;
        try {
            Timeline.awaitWatch(cluster, jobId, Duration.ofSeconds(30));
            cluster.killNode("node2");
            for (String phase : PhasePauses.RECOVERY_ORDER) {
                pauses.awaitPause(jobId, phase);
                stop(component);
                away = true;
                pauses.release(phase);
                Thread.sleep(AWAY.toMillis()); // the outage itself, not a wait for a condition
                start(component);
                away = false;
            }
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            String output = cluster.jobOutput(jobId);
            assertEquals(JobState.COMPLETED, done.state(), output);
            assertTrue(output.contains("SRUN_EXIT=0"), output);
            assertTrue(output.contains(" node=node3 list=node[1,3] mnode=node1\n"), output);
            assertEquals("node[1,3]", truth.jobField(jobId, "NodeList"), "node2 left the job");
            assertTrue(
                    truth.nodeField("node2", "Reason").startsWith("Action:Replace"),
                    truth.nodeField("node2", "Reason"));
            for (String node : List.of("node1", "node3", "node4")) {
                String state = truth.nodeField(node, "State");
                assertFalse(
                        state.contains("FAIL") || state.contains("DOWN") || state.contains("DRAIN"),
                        node + " " + state);
            }
            Timeline timeline = Timeline.of(cluster, jobId);
            assertEquals(
                    PhasePauses.RECOVERY_ORDER,
                    timeline.all(Timeline.Kind.PAUSE).stream()
                            .map(e -> e.detail("phase"))
                            .toList(),
                    "each phase met the outage in turn: " + timeline);
            Timeline.Event replacement = timeline.only(Timeline.Kind.REPLACEMENT);
            assertEquals(
                    List.of("in-job-spare", "node2", "node[1,3]"),
                    List.of(replacement.detail("path"), replacement.faultyNodes(), replacement.detail("stepNodes")),
                    timeline.toString());
            assertEquals("NODE_FAULT", timeline.outcomes().get(0), timeline.toString());
            timeline.assertSucceededAfterOnlyUnstarted(1);
            if (component.equals("agent")) {
                // The agent that marked node2 is the one started again after the mark's outage.
                String audit = LocalAgent.read(supervised.agent().auditLog());
                assertTrue(
                        audit.lines()
                                .anyMatch(l -> l.contains("\"op\":\"mark\"")
                                        && l.contains("\"node2\"")
                                        && l.contains("\"jobId\":\"" + jobId + "\"")
                                        && l.contains("\"ok\":true")),
                        audit);
            } else {
                // Accounting caught up with what happened while slurmdbd was away.
                Wait.until("accounting to record job " + jobId + " COMPLETED", Duration.ofSeconds(60), () -> {
                    CommandResult sacct = cluster.run(List.of("sacct", "-n", "-X", "-P", "-j", jobId, "-o", "State"));
                    return sacct.succeeded()
                                    && sacct.stdout()
                                            .lines()
                                            .anyMatch(l -> l.strip().equals("COMPLETED"))
                            ? Optional.of(true)
                            : Optional.empty();
                });
            }
        } finally {
            if (away) {
                start(component);
            }
            pauses.cleanUp();
            cluster.run(List.of("scancel", jobId));
            cluster.reviveNode("node2");
            cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
        }
    }

    private static void stop(String component) throws InterruptedException {
        if (component.equals("agent")) {
            supervised.stopAgentKeepingState();
        } else {
            cluster.stopDbd();
        }
    }

    private static void start(String component) {
        if (component.equals("agent")) {
            supervised.startAgentAgain(cluster);
        } else {
            cluster.startDbd();
        }
    }
}
