package org.slurmautoresume.supervisor.step.restart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.env.JobEnvironment;
import org.slurmautoresume.supervisor.step.settings.Allocation;

/** What an attempt inherits, as the value the restart actions return: each way it is made. */
class NextAttemptTest {

    private static final Map<String, String> THREE_NODE_JOB =
            Map.of("SLURM_JOB_NODELIST", "node[1-3]", "SLURM_JOB_NUM_NODES", "3", "SLURMD_NODENAME", "node1");

    @Test
    void theFirstAttemptRunsWhereTheSparesPlanPutsItAndIsNotToldToOverlap() {
        Optional<InJobSpares> plan =
                InJobSpares.plan(List.of("srun", "-N2", "train.sh"), Allocation.fromEnvironment(THREE_NODE_JOB));
        NextAttempt first = NextAttempt.first(plan, Map.of("NODE_LIST", "node[1-2]"));

        assertEquals(Optional.of(List.of("node1", "node2")), first.placedOn());
        assertEquals(Map.of("NODE_LIST", "node[1-2]"), first.variables());
        assertFalse(first.overlap());
        assertEquals(
                Optional.empty(),
                NextAttempt.first(Optional.empty(), Map.of()).placedOn(),
                "without spares Slurm places the step");
    }

    @Test
    void aRepairedJobsSlurmVariablesWinAndTheValueIsNotChangedAfterwards() {
        NextAttempt first = NextAttempt.first(Optional.empty(), Map.of("NODE_LIST", "node[1-2]"));
        Map<String, String> step = new HashMap<>(Map.of("NODE_LIST", "node[1,3]", "SLURM_NNODES", "9"));
        NextAttempt next = first.repaired(step, Map.of("SLURM_NNODES", "2"), true, List.of("node2"));
        step.put("NODE_LIST", "changed after");

        assertEquals(Map.of("NODE_LIST", "node[1,3]", "SLURM_NNODES", "2"), next.variables());
        assertTrue(next.overlap());
        assertEquals(Map.of("NODE_LIST", "node[1-2]"), first.variables(), "the earlier value stays as it was");
    }

    @Test
    void aStepMovedOntoASpareIsToldItsNodesWhileSlurmsSizeStaysTheJobs() {
        Optional<InJobSpares> plan =
                InJobSpares.plan(List.of("srun", "-N2", "train.sh"), Allocation.fromEnvironment(THREE_NODE_JOB));
        NextAttempt first = NextAttempt.first(plan, Map.of());
        List<String> nodes = List.of("node1", "node3");
        JobEnvironment step = new JobEnvironment("42", "node[1,3]", nodes, "node1", "10.0.0.1");
        JobEnvironment whole =
                new JobEnvironment("42", "node[1,3-4]", List.of("node1", "node3", "node4"), "node1", "10.0.0.1");

        NextAttempt moved = first.movedTo(nodes, step, whole, false, List.of("node2"));

        assertEquals(Optional.of(nodes), moved.placedOn());
        assertEquals("node[1,3]", moved.variables().get("NODE_LIST"));
        assertEquals("2", moved.variables().get("NNODES"));
        assertEquals("3", moved.variables().get("SLURM_JOB_NUM_NODES"));
        assertEquals("node[1,3-4]", moved.variables().get("SLURM_JOB_NODELIST"));
        assertEquals(plan, moved.spares(), "the plan made before the first attempt goes on");
    }

    @Test
    void everyNodeFoundFaultyIsCarriedOnSoNoLaterAttemptRunsThere() {
        Optional<InJobSpares> plan =
                InJobSpares.plan(List.of("srun", "-N2", "train.sh"), Allocation.fromEnvironment(THREE_NODE_JOB));
        NextAttempt first = NextAttempt.first(plan, Map.of());
        JobEnvironment step = new JobEnvironment("42", "node[2-3]", List.of("node3", "node2"), "node3", "10.0.0.3");

        NextAttempt moved = first.movedTo(List.of("node3", "node2"), step, step, false, List.of("node1"));
        NextAttempt again = moved.repaired(Map.of(), Map.of(), false, List.of("node2", "node1"));

        assertEquals(List.of(), first.faultyBefore());
        assertEquals(List.of("node1"), moved.faultyBefore());
        assertEquals(List.of("node1", "node2"), again.faultyBefore(), "each node once, in the order found");
        assertEquals(List.of("node1", "node2", "node4"), again.faultyWith(List.of("node4")));
    }
}
