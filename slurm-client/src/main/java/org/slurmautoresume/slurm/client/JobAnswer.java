package org.slurmautoresume.slurm.client;

import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.model.Job;

/** What {@code scontrol show job ID} may answer before {@link SlurmClient} trusts it. */
final class JobAnswer {

    private JobAnswer() {}

    /**
     * The record of job {@code id} when the answer can only be Slurm's: one record of that job,
     * and any others members of its array or het job. A second record with no such tie is a
     * line break in a value that forged it, and a reading that cannot be trusted is refused.
     */
    static Optional<Job> onlyRecordOf(String id, List<Job> jobs) {
        List<Job> own = jobs.stream().filter(j -> j.jobId().equals(id)).toList();
        boolean tied = jobs.size() == 1
                || jobs.stream()
                        .allMatch(j -> j.arrayJobId().filter(id::equals).isPresent()
                                || j.hetJobId().filter(id::equals).isPresent());
        if (own.size() > 1 || !tied) {
            throw new SlurmException(
                    SlurmException.Kind.BAD_OUTPUT,
                    "show job " + id + " printed " + jobs.size()
                            + " records that are not all of job " + id + ": a value of the job holds a line break;"
                            + " the job cannot be read safely");
        }
        return own.isEmpty() ? jobs.stream().findFirst() : Optional.of(own.get(0));
    }
}
