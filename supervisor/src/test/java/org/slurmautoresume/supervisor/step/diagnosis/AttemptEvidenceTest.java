package org.slurmautoresume.supervisor.step.diagnosis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.supervisor.step.FakeSlurm;

class AttemptEvidenceTest {

    private final FakeSlurm slurm = new FakeSlurm(List.of("node1", "node2"), List.of("node1", "node2", "node3"));
    private final List<String> said = new ArrayList<>();
    private final Optional<JobId> job = Optional.of(JobId.parse(FakeSlurm.JOB));

    @Test
    void aSuccessAsksSlurmNothing() {
        AttemptEvidence evidence = AttemptEvidence.gather(
                0, Optional.empty(), List.of(), List.of("node1"), job, slurm.client(), said::add);
        assertTrue(slurm.ran().isEmpty());
        assertTrue(evidence.jobAfter().isEmpty());
        assertTrue(evidence.controllerUp().isEmpty());
    }

    @Test
    void aFailureReadsTheJobAndTheStepsNodes() {
        slurm.nodeState("node2", "DOWN*");
        AttemptEvidence evidence = AttemptEvidence.gather(
                1, Optional.empty(), List.of(), List.of("node1", "node2"), job, slurm.client(), said::add);
        assertEquals(FakeSlurm.JOB, evidence.jobAfter().orElseThrow().jobId().toString());
        assertEquals(
                List.of("node1", "node2"),
                evidence.stepNodesAfter().stream().map(Node::name).toList());
        assertTrue(evidence.stepNodesAfter().get(1).state().isDown());
        assertTrue(said.isEmpty());
    }

    @Test
    void aStepNeverNamedIsSeenOnTheJobsNodes() {
        AttemptEvidence evidence =
                AttemptEvidence.gather(1, Optional.empty(), List.of(), List.of(), job, slurm.client(), said::add);
        assertEquals(List.of("node1", "node2"), evidence.stepHosts());
    }

    @Test
    void aSilentSlurmIsSaidAndLeavesTheRecordsEmpty() {
        slurm.refuse("show", "slurm_load_jobs error: Unable to contact slurm controller (connect failure)");
        AttemptEvidence evidence = AttemptEvidence.gather(
                1, Optional.empty(), List.of(), List.of("node1"), job, slurm.client(), said::add);
        assertTrue(evidence.jobAfter().isEmpty());
        assertTrue(evidence.stepNodesAfter().isEmpty());
        assertEquals(1, said.size());
    }

    @Test
    void slurmctldsUptimeIsReadOnlyAfterTheRestartRefusal() {
        AttemptEvidence other = AttemptEvidence.gather(
                1,
                Optional.empty(),
                List.of("srun: error: task 0 exited"),
                List.of("node1"),
                job,
                slurm.client(),
                said::add);
        assertTrue(other.controllerUp().isEmpty());
        assertTrue(slurm.ran("config").isEmpty());
        AttemptEvidence refused = AttemptEvidence.gather(
                1,
                Optional.empty(),
                List.of("srun: error: Unable to create" + " step for job 42: " + NodeRegistration.REFUSAL),
                List.of("node1"),
                job,
                slurm.client(),
                said::add);
        assertEquals(1, slurm.ran("config").size());
        assertTrue(refused.controllerUp().isPresent(), "the fixture's BOOT_TIME is in the past");
    }
}
