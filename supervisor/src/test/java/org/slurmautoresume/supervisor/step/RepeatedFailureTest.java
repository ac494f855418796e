package org.slurmautoresume.supervisor.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.slurmautoresume.supervisor.step.AttemptLoopTest.only;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.supervisor.step.ScriptedSrun.Scripted;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;

/**
 * Restart loops: the real supervisor over the fake Slurm and a scripted srun, with a budget far
 * larger than the failures, so only the same-failure limit can end the step early.
 */
class RepeatedFailureTest {

    private static final String ILLEGAL_ACCESS = "RuntimeError: CUDA error: an illegal memory access was encountered";

    @TempDir
    Path dir;

    private SupervisedRun job;

    @BeforeEach
    void jobWithAGenerousBudget() throws IOException {
        job = new SupervisedRun(
                dir, new FakeSlurm(List.of("node1", "node2"), List.of("node1", "node2", "node3", "node4")));
        job.with(SupervisorSettings.MAX_APP_RETRIES, "10");
    }

    @AfterEach
    void stopAgent() throws IOException {
        job.close();
    }

    private static Scripted fails(int status, String error, int rank, String node) {
        return Scripted.exits(status)
                .stderr("[rank" + rank + "]: " + error + " (rank " + rank + " on " + node + ")")
                .stderr("srun: error: " + node + ": task " + rank + ": Exited with exit code " + status);
    }

    @Test
    void theThirdIdenticalFailureInARowEndsTheStepWithItsStatusLongBeforeTheBudget() throws Exception {
        ScriptedSrun srun = new ScriptedSrun(
                fails(1, ILLEGAL_ACCESS, 3, "node2"),
                fails(1, ILLEGAL_ACCESS, 7, "node1"),
                fails(1, ILLEGAL_ACCESS, 0, "node2"),
                Scripted.exits(0));

        assertEquals(1, job.run(srun));

        assertEquals(3, srun.starts().size());
        List<EventHistory.Event> timeline = job.timeline();
        EventHistory.Event repeated = only(timeline, "repeated-failure");
        assertEquals("1,2,3", repeated.details().get("attempts"));
        assertEquals("3", repeated.details().get("limit"));
        assertEquals("APPLICATION_FAILURE", repeated.details().get("fault"));
        assertTrue(repeated.details().get("signature").contains("illegal memory access"), repeated.toString());
        assertEquals(3, repeated.attempt());
        assertEquals("1", only(timeline, "give-up").details().get("status"));
        assertEquals(
                2, timeline.stream().filter(e -> e.event().equals("decision")).count());
        assertTrue(job.slurm.ran("requeue").isEmpty(), "no requeue loop either");
        assertTrue(job.said().contains("attempts 1,2,3 failed the same way"), job.said());
    }

    @Test
    void theSameFailureDoesNotRequeueTheJobWhenTheBudgetWouldHave() throws Exception {
        job.with(SupervisorSettings.MAX_APP_RETRIES, "2").with(SupervisorSettings.ON_EXHAUSTED, "requeue");
        ScriptedSrun srun = new ScriptedSrun(
                fails(1, ILLEGAL_ACCESS, 0, "node1"),
                fails(1, ILLEGAL_ACCESS, 0, "node1"),
                fails(1, ILLEGAL_ACCESS, 0, "node1"));

        assertEquals(1, job.run(srun));

        assertTrue(job.slurm.ran("requeue").isEmpty(), job.said());
        only(job.timeline(), "repeated-failure");
    }

    @Test
    void differentFailuresKeepRestartingWithinTheBudget() throws Exception {
        ScriptedSrun srun = new ScriptedSrun(
                fails(1, ILLEGAL_ACCESS, 0, "node1"),
                fails(1, "torch.OutOfMemoryError: CUDA out of memory", 0, "node1"),
                fails(1, ILLEGAL_ACCESS, 0, "node1"),
                fails(2, ILLEGAL_ACCESS, 0, "node1"),
                fails(1, "KeyError: 'lr'", 0, "node1"),
                Scripted.exits(0));

        assertEquals(0, job.run(srun));

        assertEquals(6, srun.starts().size());
        assertTrue(job.timelineWords().stream().noneMatch("repeated-failure"::equals), job.said());
    }

    @Test
    void withTheLimitOffOnlyTheBudgetEndsTheSameFailure() throws Exception {
        job.with(SupervisorSettings.MAX_APP_RETRIES, "3").with(SupervisorSettings.MAX_SAME_FAILURES, "0");
        ScriptedSrun srun = new ScriptedSrun(
                fails(1, ILLEGAL_ACCESS, 0, "node1"),
                fails(1, ILLEGAL_ACCESS, 0, "node1"),
                fails(1, ILLEGAL_ACCESS, 0, "node1"),
                fails(1, ILLEGAL_ACCESS, 0, "node1"));

        assertEquals(1, job.run(srun));

        assertEquals(4, srun.starts().size());
        assertTrue(job.timelineWords().stream().noneMatch("repeated-failure"::equals), job.said());
        only(job.timeline(), "give-up");
    }

    @Test
    void failuresWithoutAnErrorLineAreLeftToTheBudget() throws Exception {
        job.with(SupervisorSettings.MAX_APP_RETRIES, "3");
        ScriptedSrun srun =
                new ScriptedSrun(Scripted.exits(1), Scripted.exits(1), Scripted.exits(1), Scripted.exits(1));

        assertEquals(1, job.run(srun));

        assertEquals(4, srun.starts().size());
    }
}
