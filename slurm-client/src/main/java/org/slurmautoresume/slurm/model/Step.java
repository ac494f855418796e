package org.slurmautoresume.slurm.model;

import java.time.LocalDateTime;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/** One job step ({@code 123.0}, {@code 123.batch}, {@code 123.extern}) from {@code scontrol show step}. */
public record Step(
        String jobId,
        String stepId,
        String name,
        String state,
        String nodeList,
        OptionalInt numNodes,
        OptionalInt numTasks,
        Optional<LocalDateTime> startTime,
        Optional<String> srunHost,
        OptionalInt srunPid,
        Map<String, String> raw) {

    public Step {
        raw = RawFields.of(raw);
    }

    /** {@code JOBID.STEPID}, as srun and scancel name it. */
    public String fullId() {
        return jobId + "." + stepId;
    }
}
