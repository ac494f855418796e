package org.slurmautoresume.slurm.env;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StepNodesTest {

    /** What srun gave a task of step 0 of job 6, a 3-node job whose step runs on 2 nodes. */
    private static Map<String, String> task() {
        Map<String, String> env = new HashMap<>();
        env.put("SLURM_JOB_ID", "6");
        env.put("SLURM_JOB_NODELIST", "node[1-3]");
        env.put("SLURM_JOB_NUM_NODES", "3");
        env.put("SLURM_STEP_ID", "0");
        env.put("SLURM_STEP_NODELIST", "node[1,3]");
        env.put("SLURM_STEP_NUM_NODES", "2");
        return env;
    }

    @Test
    void aTaskKnowsItsStepsNodesInSlurmsOrder() {
        StepNodes step = StepNodes.ofTask(task(), "6").orElseThrow();
        assertEquals(List.of("node1", "node3"), step.hosts());
        assertEquals("node[1,3]", step.nodeList());
        assertEquals("node1", step.master());
    }

    @Test
    void aBatchScriptIsNoTaskOfAStep() {
        Map<String, String> batch = task();
        batch.keySet().removeIf(name -> name.startsWith("SLURM_STEP"));
        assertEquals(Optional.empty(), StepNodes.ofTask(batch, "6"));
    }

    @Test
    void anotherJobsStepSaysNothingAboutThisJob() {
        assertEquals(Optional.empty(), StepNodes.ofTask(task(), "7"));
    }

    @Test
    void variablesThatDisagreeAreNotTrusted() {
        Map<String, String> env = task();
        env.put("SLURM_STEP_NUM_NODES", "3");
        assertEquals(Optional.empty(), StepNodes.ofTask(env, "6"));
        env.put("SLURM_STEP_NUM_NODES", "two");
        assertEquals(Optional.empty(), StepNodes.ofTask(env, "6"));
        env.put("SLURM_STEP_NUM_NODES", "2");
        env.put("SLURM_STEP_NODELIST", "node[3-1]");
        assertTrue(StepNodes.ofTask(env, "6").isEmpty());
    }

    @Test
    void theOlderSpellingOfTheStepIdCounts() {
        Map<String, String> env = task();
        env.remove("SLURM_STEP_ID");
        env.put("SLURM_STEPID", "0");
        assertTrue(StepNodes.ofTask(env, "6").isPresent());
    }
}
