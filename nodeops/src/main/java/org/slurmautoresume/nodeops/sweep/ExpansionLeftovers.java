package org.slurmautoresume.nodeops.sweep;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.JobState;

/**
 * What job expansion can leave behind, and which of it the sweep may touch. A job's name is
 * written by its owner, so a name never decides anything here: it only picks which jobs to look
 * at and words the report. Decisions rest on fields slurmctld alone writes (see SECURITY.md,
 * "The sweep and jobs named like donors").
 */
final class ExpansionLeftovers {

    static final String EMPTIED_DONOR = "emptied-donor-record";
    static final String DONOR_NAMED = "donor-named-job";

    private ExpansionLeftovers() {}

    /**
     * Records of expansion donors already emptied: COMPLETED, no nodes, a ResizeTime, and an
     * EndTime still ahead. Only the merge of {@code scontrol update jobid=D NumNodes=0} leaves a
     * finished job so (every other end sets EndTime to the moment it ended), whoever named it.
     * Reported only: slurmctld refuses any change to a finished job, root's too, and drops the
     * record MinJobAge after its EndTime.
     */
    static List<SweepPlan.LeftoverJob> emptiedDonors(List<Job> jobs, LocalDateTime now) {
        List<SweepPlan.LeftoverJob> found = new ArrayList<>();
        for (Job job : jobs) {
            Optional<LocalDateTime> resized = job.resizeTime();
            if (job.state() != JobState.COMPLETED
                    || !job.nodeList().isBlank()
                    || resized.isEmpty()
                    || job.endTime().isEmpty()
                    || !job.endTime().get().isAfter(now)) {
                continue;
            }
            String named = SlurmControl.donorTarget(job.name())
                    .map(t -> ", named as recovery names donors for job " + t)
                    .orElse("");
            found.add(new SweepPlan.LeftoverJob(
                    EMPTIED_DONOR,
                    job.jobId(),
                    job.userName(),
                    job.state().name(),
                    job.endTime().get().toString(),
                    "expansion donor emptied at " + resized.get() + named
                            + ": COMPLETED with no nodes and an EndTime "
                            + Ages.describe(Duration.between(now, job.endTime().get()))
                            + " ahead, so slurmctld keeps the record until MinJobAge after "
                            + job.endTime().get()
                            + " (it counts toward MaxJobCount); Slurm refuses changes to a finished job, also root's,"
                            + " so nothing can remove it sooner"));
        }
        return found;
    }

    /**
     * Whether a donor-named job may be cancelled: only while Slurm itself shows it is a pending
     * expansion of a job that no longer runs, which it would never start (slurmctld accepted the
     * expand dependency only for a running job of the same partition and QOS, and a pending job
     * holds no nodes). {@code target} is empty when the target's record is gone.
     */
    static boolean pendingExpansionOfEndedJob(Job donor, JobId targetId, Optional<Job> target) {
        if (donor.state() != JobState.PENDING) {
            return false;
        }
        String dependency = donor.dependency();
        String expected = "expand:" + targetId;
        boolean expands = dependency.equals(expected) || dependency.startsWith(expected + "(");
        return expands && target.map(t -> t.state() != JobState.RUNNING).orElse(true);
    }

    /** A running job named like a donor: what the report says instead of cancelling it. */
    static SweepPlan.LeftoverJob donorNamed(Job job, String whyOld) {
        return new SweepPlan.LeftoverJob(
                DONOR_NAMED,
                job.jobId(),
                job.userName(),
                job.state().name(),
                job.endTime().map(LocalDateTime::toString).orElse(""),
                "named like an expansion donor (" + job.name()
                        + ") and " + whyOld
                        + "; left alone: nothing Slurm writes tells a running donor from a job its owner"
                        + " named so (recovery gives its donors a one-minute limit, so one of them ends by itself)");
    }
}
