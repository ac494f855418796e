package org.slurmautoresume.supervisor.step.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Step;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.StepParser;

/** Which listed step is the one our srun created, over a real Slurm 24.11 capture. */
class StepWatchLookupTest {

    /** Job 1 on 24.11: step 1.0 of srun pid 2398 runs; the srun of pid 2469 waits for resources (1.TDB). */
    private static final List<Step> STEPS =
            new StepParser().parseAll(Fixtures.read("slurm-24.11", "show-step-job-pending-step.txt"));

    @Test
    void theRunningStepOfOurSrunIsOurs() {
        assertEquals(
                List.of("0"),
                STEPS.stream()
                        .filter(s -> StepWatch.createdBy(s, 2398))
                        .map(Step::stepId)
                        .toList());
    }

    @Test
    void aStepStillWaitingForResourcesIsNotYetOurs() {
        assertEquals(
                List.of(),
                STEPS.stream().filter(s -> StepWatch.createdBy(s, 2469)).toList(),
                "1.TDB has no id to watch or cancel yet");
    }
}
