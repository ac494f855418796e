package org.slurmautoresume.slurm.model;

import java.util.List;

/**
 * Every job scontrol listed, and the records it printed that could not be read. A user writes
 * a job's name, and a name holding a line break makes the one-line listing print a record in
 * pieces: that job is reported, never guessed at, and the other jobs stay readable.
 */
public record JobListing(List<Job> jobs, List<Unreadable> unreadable) {

    public JobListing {
        jobs = List.copyOf(jobs);
        unreadable = List.copyOf(unreadable);
    }

    /**
     * One record that could not be read.
     *
     * @param jobId   the job id scontrol printed first on the line, or "" for a piece of a
     *                record that starts with no job id
     * @param problem why, quoting the start of the record
     */
    public record Unreadable(String jobId, String problem) {
    }
}
