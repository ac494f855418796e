package org.slurmautoresume.nodeops.sweep;

import java.util.List;
import org.slurmautoresume.slurm.model.JobListing;

/**
 * What one sweep did, in the shape {@code autoresume sweep --json} prints (stable field names).
 *
 * @param status what monitoring should know, one of {@link Status}'s words
 * @param unreadableJobs job records scontrol printed that could not be read (a user's line
 *                       break in a job name, say): left alone and reported, the rest swept
 * @param leftoverJobs   job records left by job expansion, reported and not changed (added after
 *                       the fields above, which keep their names and meaning)
 */
public record SweepReport(
        String time,
        boolean dryRun,
        int nodesSeen,
        int jobsSeen,
        String status,
        List<Outcome> actions,
        List<HeldBack> heldBack,
        List<SweepPlan.Finding> findings,
        List<JobListing.Unreadable> unreadableJobs,
        List<SweepPlan.LeftoverJob> leftoverJobs) {

    public SweepReport(
            String time,
            boolean dryRun,
            int nodesSeen,
            int jobsSeen,
            String status,
            List<Outcome> actions,
            List<HeldBack> heldBack,
            List<SweepPlan.Finding> findings) {
        this(time, dryRun, nodesSeen, jobsSeen, status, actions, heldBack, findings, List.of(), List.of());
    }

    /** From best to worst; the report's status is the worst that applies. */
    public enum Status {
        NOTHING_TO_DO("nothing-to-do"),
        ACTED("acted"),
        HELD_BACK("held-back"),
        FAILED("failed");

        private final String word;

        Status(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }
    }

    /**
     * One action and how it went. {@code result}: {@code planned} (dry run), {@code done},
     * {@code kept} (health check failed: the node stays out, {@code message} says why),
     * {@code failed} or {@code denied} (Slurm refused the caller's privilege).
     */
    public record Outcome(String kind, String target, String result, String why, String command, String message) {

        public static final String PLANNED = "planned";
        public static final String DONE = "done";
        public static final String KEPT = "kept";
        public static final String FAILED = "failed";
        public static final String DENIED = "denied";

        boolean failed() {
            return result.equals(FAILED) || result.equals(DENIED);
        }
    }

    /** An action the caps held back. */
    public record HeldBack(String kind, String target, String why, String heldBecause) {}

    public SweepReport {
        actions = List.copyOf(actions);
        heldBack = List.copyOf(heldBack);
        findings = List.copyOf(findings);
        unreadableJobs = List.copyOf(unreadableJobs);
        leftoverJobs = List.copyOf(leftoverJobs);
    }

    /** This report with the job records that could not be read. */
    public SweepReport withUnreadableJobs(List<JobListing.Unreadable> unreadable) {
        return new SweepReport(
                time, dryRun, nodesSeen, jobsSeen, status, actions, heldBack, findings, unreadable, leftoverJobs);
    }

    /** This report with the expansion leftovers the plan found. */
    public SweepReport withLeftoverJobs(List<SweepPlan.LeftoverJob> leftovers) {
        return new SweepReport(
                time, dryRun, nodesSeen, jobsSeen, status, actions, heldBack, findings, unreadableJobs, leftovers);
    }

    static Status statusOf(List<Outcome> actions, List<HeldBack> heldBack) {
        if (actions.stream().anyMatch(Outcome::failed)) {
            return Status.FAILED;
        }
        if (!heldBack.isEmpty()) {
            return Status.HELD_BACK;
        }
        return actions.isEmpty() ? Status.NOTHING_TO_DO : Status.ACTED;
    }

    public Status statusValue() {
        for (Status s : Status.values()) {
            if (s.word().equals(status)) {
                return s;
            }
        }
        throw new IllegalStateException("unknown status " + status);
    }
}
