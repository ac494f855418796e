package org.slurmautoresume.nodeops.sweep;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.Node;

/**
 * The stuck-COMPLETING rule. A node still COMPLETING a job long after the job ended holds
 * processes Slurm could not end (a task asleep on a hung filesystem, a FUSE daemon of the
 * job's owner): a reboot frees it. But DOWN kills every job on the node, and any user can hold
 * their own job in COMPLETING. So the node is set DOWN only where nothing else runs; where
 * another job runs it is drained, as Slurm drains a node whose tasks it cannot kill: no new job
 * lands, the running ones finish, and a later sweep sets it DOWN once only stuck jobs are left.
 */
final class StuckCompleting {

    /** A finding's kind: stuck COMPLETING, already kept from new jobs, others still running there. */
    static final String WAITS_FOR_JOBS = "stuck-completing-waits-for-jobs";

    private final Duration limit;

    StuckCompleting(Duration limit) {
        this.limit = limit;
    }

    /** The drain's reason: no {@code Action:} reason, which a job's supervisor reads as its node's fault. */
    static String drainReason(String jobId) {
        return "stuck COMPLETING job " + jobId + ": drained while other jobs run";
    }

    /** The DOWN's reason: the node needs a reboot to free what the job left. */
    static String downReason(String jobId) {
        return "Action:Reboot stuck COMPLETING job " + jobId;
    }

    /**
     * The actions for {@code completing} nodes, and the findings for those left as they are.
     * A node already DOWN is what this rule's last action leaves, and Slurm ends its jobs.
     */
    List<SweepAction> plan(
            List<Node> completing, NodeOccupants occupants, LocalDateTime now, List<SweepPlan.Finding> findings) {
        List<SweepAction> actions = new ArrayList<>();
        for (Node node : completing) {
            if (node.state().isDown()) {
                continue;
            }
            Optional<Job> oldest = occupants.listing(node.name()).stream()
                    .filter(job ->
                            job.state() == JobState.COMPLETING && job.endTime().isPresent())
                    .min((a, b) -> a.endTime().get().compareTo(b.endTime().get()));
            if (oldest.isEmpty() || !isStuck(oldest.get(), now)) {
                continue;
            }
            Job job = oldest.get();
            Duration age = Duration.between(job.endTime().get(), now);
            String stuck = node.state().display() + ": job " + job.jobId() + " ended "
                    + job.endTime().get() + " and is still COMPLETING after " + Ages.describe(age) + " (limit "
                    + Ages.describe(limit) + ")";
            // Other jobs stuck as long count as this one: none of them runs, DOWN ends only what is stuck.
            Optional<String> others = occupants.otherWork(node, NodeOccupants.RUNNING_FLAGS, j -> isStuck(j, now));
            if (others.isEmpty()) {
                actions.add(new SweepAction(
                        SweepAction.Kind.DOWN_STUCK_COMPLETING,
                        node.name(),
                        node.partitions(),
                        downReason(job.jobId()),
                        stuck + "; no other job runs there"));
            } else if (node.state().isDrain() || node.state().isFail()) {
                findings.add(new SweepPlan.Finding(
                        WAITS_FOR_JOBS,
                        node.name(),
                        stuck + "; " + others.get()
                                + ": it takes no new job already, and is set DOWN once only stuck jobs are left"));
            } else {
                actions.add(new SweepAction(
                        SweepAction.Kind.DRAIN_STUCK_COMPLETING,
                        node.name(),
                        node.partitions(),
                        drainReason(job.jobId()),
                        stuck + "; " + others.get() + ": drained so that no new job lands"
                                + " and those running finish; set DOWN once only stuck jobs are left"));
            }
        }
        return actions;
    }

    /** COMPLETING a job that ended longer ago than the limit; a job with no EndTime is not known stuck. */
    private boolean isStuck(Job job, LocalDateTime now) {
        return job.state() == JobState.COMPLETING
                && job.endTime().isPresent()
                && Duration.between(job.endTime().get(), now).compareTo(limit) > 0;
    }
}
