package org.slurmautoresume.supervisor.step.restart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.supervisor.step.AttemptLaunch;
import org.slurmautoresume.supervisor.step.settings.Allocation;

/** Which sruns have in-job spares, which nodes their step starts on, and who takes a failed node's place. */
class InJobSparesTest {

    private static final Map<String, String> THREE_NODE_JOB =
            Map.of("SLURM_JOB_NODELIST", "node[1-3]", "SLURM_JOB_NUM_NODES", "3", "SLURMD_NODENAME", "node1");

    private static List<String> argv(String line) {
        return List.of(line.split(" "));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "srun -N 2 train.sh",
                "srun -N2 train.sh",
                "srun --nodes=2 train.sh",
                "srun --nodes 2 train.sh",
                "srun -l -N2 train.sh",
                "srun -lN2 train.sh",
                "srun --auto-resume=1 -n 4 -N 2 train.sh",
                "srun --container-image img:1 --exclusive -N2 train.sh"
            })
    void everyFormOfAnExactNodeCountIsRead(String line) {
        assertEquals(OptionalInt.of(2), InJobSpares.exactNodeCount(argv(line)), line);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "srun train.sh",
                "srun -N 2-3 train.sh",
                "srun --nodes=2-3 train.sh",
                "srun -N2 -w node[1-2] train.sh",
                "srun -N2 --nodelist=node[1-2] train.sh",
                "srun -N2 -x node3 train.sh",
                "srun --exclude=node3 -N2 train.sh",
                "srun -N2 -wnode1,node2 train.sh",
                "srun -n 4 train.sh -N 2",
                "srun train.sh --nodes=2"
            })
    void noExactCountOrAUserPlacementMeansNoSpares(String line) {
        assertEquals(OptionalInt.empty(), InJobSpares.exactNodeCount(argv(line)), line);
        assertTrue(
                InJobSpares.plan(argv(line), Allocation.fromEnvironment(THREE_NODE_JOB))
                        .isEmpty(),
                line);
    }

    @Test
    void theStepStartsOnTheJobsFirstNodesInSlurmsOrder() {
        InJobSpares plan = InJobSpares.plan(argv("srun -N2 train.sh"), Allocation.fromEnvironment(THREE_NODE_JOB))
                .orElseThrow();

        assertEquals(List.of("node1", "node2"), plan.stepNodes());
        assertEquals(List.of("node3"), plan.spares());
        assertEquals("node1", plan.batchHost());
    }

    @Test
    void theBatchHostIsAlwaysAStepNode() {
        assertEquals(
                List.of("node1", "node3"), InJobSpares.firstStepNodes(List.of("node1", "node2", "node3"), "node3", 2));
        assertEquals(List.of("node3"), InJobSpares.firstStepNodes(List.of("node1", "node2", "node3"), "node3", 1));
        InJobSpares plan = InJobSpares.plan(
                        argv("srun -N2 train.sh"),
                        Allocation.fromEnvironment(Map.of(
                                "SLURM_JOB_NODELIST",
                                "node[1-3]",
                                "SLURM_JOB_NUM_NODES",
                                "3",
                                "SLURMD_NODENAME",
                                "node3")))
                .orElseThrow();
        assertEquals(List.of("node1", "node3"), plan.stepNodes());
    }

    @Test
    void withoutSlurmdNodenameTheFirstNodeIsTakenForTheBatchHost() {
        InJobSpares plan = InJobSpares.plan(
                        argv("srun -N1 train.sh"),
                        Allocation.fromEnvironment(Map.of("SLURM_NODELIST", "node[2-4]", "SLURM_NNODES", "3")))
                .orElseThrow();

        assertEquals("node2", plan.batchHost());
        assertEquals(List.of("node2"), plan.stepNodes());
    }

    @Test
    void aJobNoLargerThanTheStepOrAnInconsistentEnvironmentHasNoSpares() {
        assertEquals(
                Optional.empty(),
                InJobSpares.plan(argv("srun -N3 train.sh"), Allocation.fromEnvironment(THREE_NODE_JOB)));
        assertEquals(
                Optional.empty(),
                InJobSpares.plan(argv("srun -N4 train.sh"), Allocation.fromEnvironment(THREE_NODE_JOB)));
        assertEquals(
                Optional.empty(),
                InJobSpares.plan(
                        argv("srun -N2 train.sh"),
                        Allocation.fromEnvironment(
                                Map.of("SLURM_JOB_NODELIST", "node[1-3]", "SLURM_JOB_NUM_NODES", "2"))));
        assertEquals(
                Optional.empty(), InJobSpares.plan(argv("srun -N2 train.sh"), Allocation.fromEnvironment(Map.of())));
    }

    @Test
    void aSpareTakesTheFailedNodesPlaceAndTheSurvivorsKeepTheirs() {
        List<String> step = List.of("node1", "node2", "node3");

        assertEquals(
                Optional.of(List.of("node1", "node4", "node3")),
                InJobSpares.replace(step, List.of("node2"), List.of("node1", "node3", "node4", "node5")));
        assertEquals(
                Optional.of(List.of("node1", "node4", "node5")),
                InJobSpares.replace(step, List.of("node2", "node3"), List.of("node1", "node4", "node5")));
    }

    @Test
    void tooFewNodesLeftIsNoReplacement() {
        assertEquals(
                Optional.empty(), InJobSpares.replace(List.of("node1", "node3"), List.of("node3"), List.of("node1")));
    }

    @Test
    void theNodeListGoesRightAfterSrunAndAfterOverlap() {
        assertEquals(
                List.of("srun", "--overlap", "--nodelist=node1,node3", "-N2", "train.sh"),
                AttemptLaunch.argv(argv("srun -N2 train.sh"), true, Optional.of(List.of("node1", "node3"))));
        assertEquals(argv("srun -N2 train.sh"), AttemptLaunch.argv(argv("srun -N2 train.sh"), false, Optional.empty()));
    }
}
