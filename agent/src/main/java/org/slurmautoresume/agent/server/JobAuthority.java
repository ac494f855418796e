package org.slurmautoresume.agent.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Caller;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.Node;

/**
 * Whether a caller may have the agent act on a node for a job, decided from what Slurm says at
 * that moment, never from what was true when the request arrived: the job is re-read for every
 * node of a request. The caller (uid from the kernel) must be root or the job's owner by Slurm's
 * numeric UserId; the job must be active ({@link org.slurmautoresume.slurm.model.JobState#isActive}:
 * RUNNING, SUSPENDED, COMPLETING, CONFIGURING, RESIZING, SIGNALING, STAGE_OUT, STOPPED); and
 * the node must be
 * <ul>
 *   <li>in the job's NodeList now, or</li>
 *   <li>marked by this agent for this job, with that mark still standing ({@link MarkProvenance}:
 *       the supervisor marks, then drops the node from the job; an administrator's change since
 *       ends the claim), or</li>
 *   <li>recorded by an earlier {@code watch} of this job and now not responding: Slurm itself
 *       removes a dead node from a {@code --no-kill} job. A watched node that left the job while it
 *       still answers was shrunk away ({@code scontrol update job N NumNodes=...}) and is forgotten.</li>
 * </ul>
 */
final class JobAuthority {

    private final SlurmClient slurm;
    private final WatchedJobs watched;
    private final MarkProvenance provenance;

    JobAuthority(SlurmClient slurm, WatchedJobs watched, MarkProvenance provenance) {
        this.slurm = Objects.requireNonNull(slurm);
        this.watched = Objects.requireNonNull(watched);
        this.provenance = Objects.requireNonNull(provenance);
    }

    /** The job as Slurm has it now, with the caller's right to it; or why not. */
    record Verdict(Job job, String refusal) {
        static Verdict refused(String why) {
            return new Verdict(null, why);
        }

        boolean allowed() {
            return refusal == null;
        }
    }

    /** The job read afresh: known, the caller's (or root's), active. */
    Verdict job(Caller caller, JobId jobId) {
        Job job;
        try {
            Optional<Job> found = slurm.job(jobId);
            if (found.isEmpty()) {
                return Verdict.refused("job " + jobId + " is not known to Slurm");
            }
            job = found.get();
        } catch (SlurmException e) {
            return Verdict.refused("could not read job " + jobId + ": " + e.getMessage());
        }
        if (!caller.isRoot()) {
            if (job.userId().isEmpty()) {
                // Without Slurm's numeric owner there is nothing to compare the kernel's uid with.
                return Verdict.refused("job " + job.jobId() + " has no numeric UserId in Slurm's record: refused");
            }
            if (Integer.toUnsignedLong(job.userId().getAsInt()) != caller.uid()) {
                return Verdict.refused("job " + job.jobId() + " belongs to " + job.userName() + "("
                        + Integer.toUnsignedLong(job.userId().getAsInt()) + "), not to " + caller);
            }
        }
        if (!job.state().isActive()) {
            return Verdict.refused("job " + job.jobId() + " is " + job.state()
                    + ", not running: the agent acts only for running jobs");
        }
        return new Verdict(job, null);
    }

    /**
     * Why {@code caller} may not have {@code node} set DOWN, which ends every job on it at once;
     * empty when they may. Root may. An ordinary user may only for a node whose slurmd does not
     * answer the agent's probe (a requeued job otherwise waits on it until SlurmdTimeout) and on
     * which Slurm lists no active job but the caller's own {@code job}: so the worst a user who
     * fakes a dead node can end is their own job.
     */
    Optional<String> downRefusal(Caller caller, Job job, String node, boolean slurmdAnswers) {
        if (caller.isRoot()) {
            return Optional.empty();
        }
        String refused = "state=down is refused for " + caller + ": ";
        if (slurmdAnswers) {
            return Optional.of(refused + "the node's slurmd answers, so down would only end the jobs on it"
                    + " (root's and the site's tools' to decide); ask for state=fail");
        }
        return othersOn(job, node).map(why -> refused + "down " + why + "; only root and the site's own tools may");
    }

    /**
     * Why acting on {@code node} would reach a job other than {@code job}: the other jobs Slurm
     * lists there (by id alone, {@link SlurmClient#activeJobIdsOn}, so no job's fields, however a
     * user filled them, decide for anyone else), or that they could not be listed; empty when the
     * node holds no other job.
     */
    Optional<String> othersOn(Job job, String node) {
        Set<String> ids;
        try {
            ids = slurm.activeJobIdsOn(node);
        } catch (RuntimeException e) {
            return Optional.of(
                    "could reach other jobs: the jobs on " + node + " could not be listed (" + e.getMessage() + ")");
        }
        List<String> others =
                ids.stream().filter(id -> !id.equals(job.jobId())).sorted().toList();
        if (others.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("would also end job(s) " + String.join(",", others) + " on " + node);
    }

    /** The owner as the ledger and the watch list key it: Slurm's numeric UserId, -1 when absent (root's request). */
    static long owner(Job job) {
        return job.userId().isPresent() ? Integer.toUnsignedLong(job.userId().getAsInt()) : -1;
    }

    static List<String> nodesOf(Job job) {
        return job.nodeList().isBlank() ? List.of() : Hostlist.expand(job.nodeList());
    }

    /** {@code nodes} that are not the job's by the rules above; forgets shrunk-away watched nodes. */
    List<String> outside(Job job, List<String> nodes) {
        List<String> current = nodesOf(job);
        String key = WatchedJobs.key(job.jobId(), owner(job));
        List<String> outside = new ArrayList<>();
        for (String node : nodes) {
            if (current.contains(node) || ownMarkStands(job, node)) {
                continue;
            }
            if (watched.nodes(key).contains(node) && leftByFailing(node)) {
                continue;
            }
            outside.add(node);
        }
        forgetShrunkAway(job, current, key);
        return outside;
    }

    /** Drops recorded nodes that left the job while their slurmd still answered Slurm. */
    void forgetShrunkAway(Job job, List<String> current, String key) {
        List<String> gone = watched.nodes(key).stream()
                .filter(n -> !current.contains(n))
                .filter(n -> !leftByFailing(n))
                .toList();
        if (!gone.isEmpty()) {
            watched.forget(key, gone);
        }
    }

    /** The agent's own mark for this job still stands on the node, by Slurm's record now. */
    private boolean ownMarkStands(Job job, String node) {
        try {
            return slurm.node(node).flatMap(n -> provenance.standing(job, n)).isPresent();
        } catch (SlurmException e) {
            return false;
        }
    }

    private boolean leftByFailing(String node) {
        try {
            return slurm.node(node).map(Node::state).map(s -> s.notResponding()).orElse(false);
        } catch (SlurmException e) {
            return false;
        }
    }
}
