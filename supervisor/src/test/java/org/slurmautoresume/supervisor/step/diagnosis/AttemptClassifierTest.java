package org.slurmautoresume.supervisor.step.diagnosis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.JobParser;
import org.slurmautoresume.slurm.parse.NodeParser;
import org.slurmautoresume.supervisor.policy.SignalNumber;

/** Classification from real 22.05 records and srun's real messages. */
class AttemptClassifierTest {

    private static final String V22 = "slurm-22.05";
    private final AttemptClassifier classifier = new AttemptClassifier();

    private static Job job(String fixture) {
        return new JobParser().parseAll(Fixtures.read(V22, fixture)).get(0);
    }

    private static List<Node> nodes(String fixture) {
        return new NodeParser().parseAll(Fixtures.read(V22, fixture));
    }

    private Classification classify(
            int status,
            Optional<SignalNumber> signal,
            List<String> stderr,
            Optional<Job> job,
            List<String> hosts,
            List<Node> nodes) {
        return classifier.classify(new AttemptEvidence(status, signal, stderr, job, hosts, nodes));
    }

    @Test
    void srunThatCouldNotReachSlurmctldToStartTheStepDidNotStartIt() {
        for (String said : List.of(
                "srun: error: Unable to create step for job 12: Unable to contact slurm controller (connect failure)",
                "srun: error: Unable to confirm allocation for job 12: Unable to contact slurm controller (connect failure)",
                "srun: error: Unable to create step for job 12: Socket timed out on send/recv operation")) {
            Classification c = classify(
                    1,
                    Optional.empty(),
                    List.of("srun: Check SLURM_JOB_ID", said),
                    Optional.of(job("show-job-running.txt")),
                    List.of("node1", "node2"),
                    nodes("show-node-mixed.txt"));
            assertEquals(Outcome.NOT_STARTED, c.outcome(), said);
            assertTrue(c.reason().contains(said), c.reason());
        }
        // A task's own words are the user's, and another refusal is no outage.
        assertEquals(
                Outcome.APP_FAILURE,
                classify(
                                1,
                                Optional.empty(),
                                List.of(
                                        "train: error: Unable to create step for job 12: Unable to contact slurm controller"),
                                Optional.of(job("show-job-running.txt")),
                                List.of("node1"),
                                nodes("show-node-mixed.txt"))
                        .outcome());
        assertEquals(
                Outcome.APP_FAILURE,
                classify(
                                1,
                                Optional.empty(),
                                List.of(
                                        "srun: error: Unable to create step for job 12: Requested node configuration is not available"),
                                Optional.of(job("show-job-running.txt")),
                                List.of("node1"),
                                nodes("show-node-mixed.txt"))
                        .outcome());
        // A cancelled job stays cancelled whatever srun said on the way out.
        assertEquals(
                Outcome.CANCELLED,
                classify(
                                1,
                                Optional.empty(),
                                List.of(
                                        "srun: error: Unable to create step for job 12: Unable to contact slurm controller (connect failure)"),
                                Optional.of(job("show-job-cancelled.txt")),
                                List.of(),
                                List.of())
                        .outcome());
    }

    @Test
    void aStepThatFailedOnANodeNhcDrainedFailedOnThatNode() {
        // The job's record is not read here (it held node[1-2]); node2 drained while the step ran, as LBNL NHC drains
        // (HealthCheckProgram): "NHC: <check>: <what>".
        String drained = Fixtures.read(V22, "show-node-mixed-drain.txt")
                .replace("Reason=bad gpu count=7 of 8", "Reason=NHC: check_nv_healthmon: GPU 3 has fallen off the bus");
        List<Node> nodes = new java.util.ArrayList<>(nodes("show-node-mixed.txt"));
        nodes.add(new NodeParser().parseAll(drained).get(0));

        Classification c = classify(1, Optional.empty(), List.of(), Optional.empty(), List.of("node1", "node2"), nodes);

        assertEquals(Outcome.NODE_FAULT, c.outcome(), c.reason());
        assertEquals(List.of("node2"), c.faultyNodes());
        assertTrue(c.reason().contains("NHC: check_nv_healthmon"), c.reason());
        // An administrator's drain with words of their own lets the failure stay the application's.
        List<Node> adminDrain = new java.util.ArrayList<>(nodes("show-node-mixed.txt"));
        adminDrain.addAll(nodes("show-node-mixed-drain.txt"));
        assertEquals(
                Outcome.APP_FAILURE,
                classify(1, Optional.empty(), List.of(), Optional.empty(), List.of("node1", "node2"), adminDrain)
                        .outcome());
        // An NHC drain on a node the step did not run on is not the step's.
        assertEquals(
                Outcome.APP_FAILURE,
                classify(1, Optional.empty(), List.of(), Optional.empty(), List.of("node1"), nodes)
                        .outcome());
    }

    /** srun's words when a restarted slurmctld refused a step on nodes it had not heard from yet (22.05, local cluster). */
    private static final String REFUSED_BEFORE_REGISTRATION =
            "srun: error: Unable to create step for job 12: Memory required by task is not available";

    @Test
    void aStepRefusedOnNodesARestartedSlurmctldHasNotHeardFromDidNotStart() {
        List<Node> unknown = nodes("show-node-all-unknown-at-startup.txt");

        Classification c = classify(
                1,
                Optional.empty(),
                List.of(REFUSED_BEFORE_REGISTRATION),
                Optional.of(job("show-job-running.txt")),
                List.of("node1", "node3"),
                unknown);

        assertEquals(Outcome.NOT_STARTED, c.outcome());
        assertEquals(List.of("node1", "node3"), c.faultyNodes(), "the nodes to wait for");
        assertTrue(c.reason().contains("node[1,3]") && c.reason().contains(REFUSED_BEFORE_REGISTRATION), c.reason());
    }

    @Test
    void theRefusalFromASlurmctldThatHadJustStartedIsNoFailureEvenOnceTheNodesRegistered() {
        // The nodes registered between srun's refusal and the supervisor's look (CI, 24.11): slurmctld
        // had started 4 s before the attempt ended, so the refusal was the registration's.
        Classification c = classifier.classify(new AttemptEvidence(
                1,
                Optional.empty(),
                List.of(REFUSED_BEFORE_REGISTRATION),
                Optional.of(job("show-job-running.txt")),
                List.of("node1", "node3"),
                nodes("show-node-mixed.txt"),
                Optional.of(java.time.Duration.ofSeconds(4))));
        assertEquals(Outcome.NOT_STARTED, c.outcome(), c.reason());
        assertEquals(List.of("node1", "node3"), c.faultyNodes());
        assertTrue(
                c.reason().contains("had started 4 s before") && c.reason().contains(REFUSED_BEFORE_REGISTRATION),
                c.reason());
        // A slurmctld up for ten minutes: the refusal is the step's own.
        assertEquals(
                Outcome.APP_FAILURE,
                classifier
                        .classify(new AttemptEvidence(
                                1,
                                Optional.empty(),
                                List.of(REFUSED_BEFORE_REGISTRATION),
                                Optional.of(job("show-job-running.txt")),
                                List.of("node1"),
                                nodes("show-node-mixed.txt"),
                                Optional.of(java.time.Duration.ofMinutes(10))))
                        .outcome());
    }

    @Test
    void theSameRefusalOnRegisteredNodesIsNoRestart() {
        // Registered nodes: a real refusal stays the step's failure, as srun reported it.
        assertEquals(
                Outcome.APP_FAILURE,
                classify(
                                1,
                                Optional.empty(),
                                List.of(REFUSED_BEFORE_REGISTRATION),
                                Optional.of(job("show-job-running.txt")),
                                List.of("node1"),
                                nodes("show-node-mixed.txt"))
                        .outcome());
        // An UNKNOWN node that is not the step's does not count.
        List<Node> otherUnknown = new java.util.ArrayList<>(nodes("show-node-mixed.txt"));
        otherUnknown.add(nodes("show-node-all-unknown-at-startup.txt").get(1));
        assertEquals(
                Outcome.APP_FAILURE,
                classify(
                                1,
                                Optional.empty(),
                                List.of(REFUSED_BEFORE_REGISTRATION),
                                Optional.of(job("show-job-running.txt")),
                                List.of("node1"),
                                otherUnknown)
                        .outcome());
        // The words in a task's output are the user's.
        assertEquals(
                Outcome.APP_FAILURE,
                classify(
                                1,
                                Optional.empty(),
                                List.of("train: Unable to create step: Memory required by task is not available"),
                                Optional.of(job("show-job-running.txt")),
                                List.of("node1"),
                                nodes("show-node-all-unknown-at-startup.txt"))
                        .outcome());
    }

    @Test
    void anUnknownNodeSlurmctldFoundSilentIsANodeFaultNotAWait() {
        // Derived from the startup record: node2 did not answer slurmctld's registration request.
        List<Node> silent = new NodeParser()
                .parseAll(Fixtures.read(V22, "show-node-all-unknown-at-startup.txt")
                        .replaceFirst("(NodeName=node2 .*?)State=UNKNOWN", "$1State=UNKNOWN+NOT_RESPONDING"));

        Classification c = classify(
                1,
                Optional.empty(),
                List.of(REFUSED_BEFORE_REGISTRATION),
                Optional.of(job("show-job-running.txt")),
                List.of("node2"),
                silent);

        assertEquals(Outcome.NODE_FAULT, c.outcome());
        assertEquals(List.of("node2"), c.faultyNodes());
    }

    @Test
    void exitZeroIsSuccessWhateverElseIsTrue() {
        Classification c = classify(
                0,
                Optional.empty(),
                List.of("srun: error: Node failure on node2"),
                Optional.of(job("show-job-running.txt")),
                List.of("node2"),
                nodes("show-node-all-with-down.txt"));
        assertEquals(Outcome.SUCCEEDED, c.outcome());
    }

    @Test
    void aStopSignalWinsOverEverything() {
        Classification c = classify(
                130,
                Optional.of(SignalNumber.INT),
                List.of(),
                Optional.of(job("show-job-running.txt")),
                List.of("node1"),
                nodes("show-node-mixed.txt"));
        assertEquals(Outcome.INTERRUPTED, c.outcome());
        assertFalse(c.outcome().rerunnable());
    }

    @Test
    void jobStatesChosenByPeopleOrSlurmAreNeverReRun() {
        assertEquals(
                Outcome.CANCELLED,
                classify(
                                143,
                                Optional.empty(),
                                List.of(),
                                Optional.of(job("show-job-cancelled.txt")),
                                List.of(),
                                List.of())
                        .outcome());
        assertEquals(
                Outcome.TIME_LIMIT,
                classify(
                                143,
                                Optional.empty(),
                                List.of(),
                                Optional.of(job("show-job-timeout.txt")),
                                List.of(),
                                List.of())
                        .outcome());
        assertEquals(
                Outcome.REQUEUED,
                classify(
                                143,
                                Optional.empty(),
                                List.of(),
                                Optional.of(job("show-job-requeued-node-fail-pending.txt")),
                                List.of(),
                                List.of())
                        .outcome());
        for (Outcome outcome : List.of(Outcome.CANCELLED, Outcome.TIME_LIMIT, Outcome.REQUEUED, Outcome.PREEMPTED)) {
            assertFalse(outcome.rerunnable(), outcome.name());
        }
    }

    @Test
    void aCancelledStepInARunningJobIsCancelled() {
        Classification c = classify(
                143,
                Optional.empty(),
                List.of(
                        "srun: Job step aborted: Waiting up to 7 seconds for job step to finish.",
                        "slurmstepd: error: *** STEP 40.0 ON node1 CANCELLED AT 2026-11-22T04:55:01 ***"),
                Optional.of(job("show-job-running.txt")),
                List.of("node1"),
                nodes("show-node-mixed.txt"));
        assertEquals(Outcome.CANCELLED, c.outcome());
    }

    @Test
    void slurmsTimeLimitAndPreemptionMessagesAreRecognised() {
        assertEquals(
                Outcome.TIME_LIMIT,
                classify(
                                143,
                                Optional.empty(),
                                List.of(
                                        "slurmstepd: error: *** STEP 8.0 ON node1 CANCELLED AT 2026-11-22T04:15:22 DUE TO TIME LIMIT ***"),
                                Optional.empty(),
                                List.of(),
                                List.of())
                        .outcome());
        assertEquals(
                Outcome.PREEMPTED,
                classify(
                                143,
                                Optional.empty(),
                                List.of(
                                        "slurmstepd: error: *** JOB 9 ON node1 CANCELLED AT 2026-11-22T04:15:22 DUE TO PREEMPTION ***"),
                                Optional.empty(),
                                List.of(),
                                List.of())
                        .outcome());
    }

    /** Recorded on the local cluster: a --no-kill job whose node3 was killed (job 17's output). */
    @Test
    void srunsNodeFailureMessageNamesTheNode() {
        Classification c = classify(
                137,
                Optional.empty(),
                List.of(
                        "srun: error: Node failure on node3", "srun: error: node2: task 1: Killed",
                        "srun: error: node1: task 0: Killed", "srun: Force Terminated StepId=17.0"),
                Optional.of(job("show-job-running-shrunk-nokill.txt")),
                List.of("node1", "node2", "node3"),
                List.of());
        assertEquals(Outcome.NODE_FAULT, c.outcome());
        assertTrue(c.outcome().rerunnable());
    }

    @Test
    void anUnhealthyNodeOfTheStepIsANodeFault() {
        Classification c = classify(
                137,
                Optional.empty(),
                List.of("srun: error: node2: task 1: Killed"),
                Optional.of(job("show-job-running.txt")),
                List.of("node1", "node2"),
                nodes("show-node-all-with-down.txt"));
        assertEquals(Outcome.NODE_FAULT, c.outcome());
        assertEquals(List.of("node2"), c.faultyNodes());
    }

    @Test
    void aShrunkJobIsANodeFaultEvenBeforeSlurmMarksTheNode() {
        // job 6 now runs on node[1,3]; the step ran on node[1-3]
        Classification c = classify(
                137,
                Optional.empty(),
                List.of(),
                Optional.of(job("show-job-running-shrunk-nokill.txt")),
                List.of("node1", "node2", "node3"),
                nodes("show-node-mixed.txt"));
        assertEquals(Outcome.NODE_FAULT, c.outcome());
        assertEquals(List.of("node2"), c.faultyNodes());
    }

    @Test
    void aFailureOnHealthyNodesIsTheApplications() {
        Classification c = classify(
                3,
                Optional.empty(),
                List.of("srun: error: node1: task 0: Exited with exit code 3"),
                Optional.of(job("show-job-running.txt")),
                List.of("node1"),
                nodes("show-node-mixed.txt"));
        assertEquals(Outcome.APP_FAILURE, c.outcome());
        assertTrue(c.reason().contains("3"), c.reason());
    }

    @Test
    void withoutAJobRecordTheExitStatusDecides() {
        assertEquals(
                Outcome.APP_FAILURE,
                classify(1, Optional.empty(), List.of(), Optional.empty(), List.of(), List.of())
                        .outcome());
    }
}
