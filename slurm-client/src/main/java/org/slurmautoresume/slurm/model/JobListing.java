package org.slurmautoresume.slurm.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every job scontrol listed, and the records it printed that could not be read. A user writes
 * a job's name, and a name holding a line break makes the one-line listing print a record in
 * pieces: that job is reported, never guessed at, and the other jobs stay readable.
 *
 * @param printedAfter for a job read from text, the job whose record was printed just before
 *                     its own (both read): where a line break forged a record, that job's name
 *                     holds it
 */
public record JobListing(List<Job> jobs, List<Unreadable> unreadable, Map<String, String> printedAfter) {

    public JobListing {
        jobs = List.copyOf(jobs);
        unreadable = List.copyOf(unreadable);
        printedAfter = Map.copyOf(printedAfter);
    }

    public JobListing(List<Job> jobs, List<Unreadable> unreadable) {
        this(jobs, unreadable, Map.of());
    }

    /**
     * The listing checked against the job ids Slurm lists with no user text beside them
     * ({@code squeue -o %A}): a record whose id is not among them was forged by a line break in
     * the name of the job printed before it, a whole record written before the break and an
     * invented id after it. Both are unreadable; nothing else changes.
     */
    public JobListing crossChecked(Set<String> listedIds) {
        List<Job> kept = new ArrayList<>(jobs);
        List<Unreadable> bad = new ArrayList<>(unreadable);
        for (Job job : jobs) {
            if (listedIds.contains(job.jobId())) {
                continue;
            }
            kept.remove(job);
            bad.add(
                    new Unreadable(
                            job.jobId(),
                            "job " + job.jobId() + " is not among the job ids squeue lists"
                                    + " (which hold no user text): a line break in a value printed before it forged this record"));
            String before = printedAfter.get(job.jobId());
            if (before != null && kept.removeIf(j -> j.jobId().equals(before))) {
                bad.add(new Unreadable(
                        before,
                        "the record goes on past its line: a value holds a line break that"
                                + " forged the record of job " + job.jobId() + " after it"));
            }
        }
        return new JobListing(kept, bad, printedAfter);
    }

    /**
     * One record that could not be read.
     *
     * @param jobId   the job id scontrol printed first on the line, or "" for a piece of a
     *                record that starts with no job id
     * @param problem why, quoting the start of the record
     */
    public record Unreadable(String jobId, String problem) {}
}
