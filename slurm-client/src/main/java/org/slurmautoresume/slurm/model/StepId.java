package org.slurmautoresume.slurm.model;

import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * A job step as srun, scancel and {@code scontrol listpids} name it: {@code JOB.STEP}, where JOB
 * is a {@link JobId} ({@code 123}, {@code 123_4}, {@code 123+1}) and STEP a step number or one of
 * Slurm's named steps ({@code batch}, {@code extern}, {@code interactive}). Numbers stay below
 * SLURM_MAX_NORMAL_STEP_ID (0xfffffff0): the values above it are those named steps' codes.
 */
public final class StepId {

    public static final int MAX_LENGTH = JobId.MAX_LENGTH + 12;

    static final long MAX_STEP = 0xffffffefL;
    private static final Set<String> NAMED = Set.of("batch", "extern", "interactive");

    private final JobId job;
    private final String step;

    private StepId(JobId job, String step) {
        this.job = job;
        this.step = step;
    }

    /** The step id, or an {@link InvalidJobIdException} that quotes the text. */
    public static StepId parse(String text) {
        if (text == null) {
            throw new InvalidJobIdException("step id", null, "none given");
        }
        if (text.length() > MAX_LENGTH) {
            throw new InvalidJobIdException("step id", text, "longer than " + MAX_LENGTH + " characters");
        }
        int dot = text.indexOf('.');
        if (dot < 0) {
            throw new InvalidJobIdException("step id", text, "no step: expected JOB.STEP, such as 123.0");
        }
        JobId job;
        try {
            job = JobId.parse(text.substring(0, dot));
        } catch (InvalidJobIdException e) {
            throw new InvalidJobIdException("step id", text, "its job part is not a job id");
        }
        String step = text.substring(dot + 1);
        if (NAMED.contains(step.toLowerCase(Locale.ROOT))) {
            return new StepId(job, step.toLowerCase(Locale.ROOT));
        }
        try {
            return new StepId(job, Long.toString(JobId.number(text, step, "step", 0, MAX_STEP)));
        } catch (InvalidJobIdException e) {
            throw new InvalidJobIdException(
                    "step id", text, "the step is neither a number nor one of batch, extern, interactive");
        }
    }

    public JobId job() {
        return job;
    }

    /** {@code 0}, {@code batch}, {@code extern} or {@code interactive}. */
    public String step() {
        return step;
    }

    @Override
    public String toString() {
        return job + "." + step;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof StepId id && id.job.equals(job) && id.step.equals(step);
    }

    @Override
    public int hashCode() {
        return Objects.hash(job, step);
    }
}
