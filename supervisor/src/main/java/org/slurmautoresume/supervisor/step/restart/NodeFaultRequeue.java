package org.slurmautoresume.supervisor.step.restart;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.client.WriteResult;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.SlurmConfig;
import org.slurmautoresume.slurm.model.SlurmVersion;
import org.slurmautoresume.supervisor.recovery.NodeFaultRecovery;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobTimeline;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;

/**
 * The end of the node-fault path when nothing can repair the job (no in-job spare left, no
 * replacement, expansion impossible or failed, the restart budget spent): a job Slurm would
 * requeue is requeued, with the faulty nodes marked FAIL first so the scheduler keeps them out,
 * instead of ending FAILED. Without this, enabling auto-resume would turn a node failure that
 * Slurm alone requeues into a failed job. A job Slurm would not requeue ends as the policy says,
 * and the supervisor says why.
 *
 * <p>On Slurm 25.11 and later a job submitted with {@code --requeue=expedite}, on a cluster with
 * {@code SlurmctldParameters=enable_expedited_requeue}, is eligible again at once after
 * {@code scontrol requeue} instead of after the requeue delay (docs/slurm-behaviour.md).
 */
final class NodeFaultRequeue {

    /** The first release with expedited requeue ({@code sbatch --requeue=expedite}). */
    static final SlurmVersion FIRST_WITH_EXPEDITED_REQUEUE = new SlurmVersion(25, 11, 0);

    /** Whether to requeue, whether Slurm will expedite it, and the words that say why. */
    record Verdict(boolean requeue, boolean expedited, String why) {}

    private final SlurmClient slurm;
    private final SlurmControl control;
    /** Marks the faulty nodes through the agent; empty when no recovery is set up at all. */
    private final Optional<NodeFaultRecovery> marker;

    private final SupervisorSettings.NodeFaultFallback setting;
    private final SupervisorLog log;
    private final JobTimeline timeline;
    private final BooleanSupplier stopRequested;

    NodeFaultRequeue(
            SlurmClient slurm,
            SlurmControl control,
            Optional<NodeFaultRecovery> marker,
            SupervisorSettings.NodeFaultFallback setting,
            SupervisorLog log,
            JobTimeline timeline,
            BooleanSupplier stopRequested) {
        this.slurm = slurm;
        this.control = control;
        this.marker = marker;
        this.setting = setting;
        this.log = log;
        this.timeline = timeline;
        this.stopRequested = stopRequested;
    }

    /** Whether a node fault with no repair left may end in a requeue (the setting). */
    boolean enabled() {
        return setting == SupervisorSettings.NodeFaultFallback.REQUEUE;
    }

    /** What {@link #tryRequeue} would decide for this job now. */
    Verdict verdict(Optional<Job> job, Optional<SlurmConfig> config) {
        return decide(setting, job, config);
    }

    /**
     * The decision, pure: from the setting, the job record (Requeue=, BatchFlag=, its state,
     * ExpeditedRequeue=) and the cluster's configuration (SLURM_VERSION, SlurmctldParameters).
     */
    static Verdict decide(
            SupervisorSettings.NodeFaultFallback setting, Optional<Job> job, Optional<SlurmConfig> config) {
        if (setting == SupervisorSettings.NodeFaultFallback.EXIT) {
            return new Verdict(
                    false,
                    false,
                    "requeueing after a node fault is off (" + SupervisorSettings.NODE_FAULT_FALLBACK + "=exit, or "
                            + SupervisorSettings.ON_EXHAUSTED + "=exit)");
        }
        if (job.isEmpty()) {
            return new Verdict(false, false, "the job could not be read from Slurm");
        }
        Job j = job.get();
        if (!j.batch()) {
            return new Verdict(
                    false,
                    false,
                    "job " + j.jobId() + " has no batch script to requeue (salloc or srun"
                            + " allocation); Slurm would not requeue it either");
        }
        if (!j.requeue()) {
            return new Verdict(
                    false,
                    false,
                    "job " + j.jobId() + " is not requeueable (Requeue=0: sbatch --no-requeue,"
                            + " or the cluster's JobRequeue=0); Slurm would not requeue it either. Submit with --requeue to"
                            + " have it requeued");
        }
        if (j.state() != JobState.RUNNING) {
            return new Verdict(
                    false, false, "job " + j.jobId() + " is " + j.state() + ", not RUNNING: Slurm has taken it over");
        }
        Optional<SlurmVersion> release =
                config.flatMap(c -> c.get("SLURM_VERSION")).flatMap(NodeFaultRequeue::version);
        boolean clusterAllows =
                release.filter(r -> r.atLeast(FIRST_WITH_EXPEDITED_REQUEUE)).isPresent()
                        && config.map(c -> c.listContains("SlurmctldParameters", "enable_expedited_requeue"))
                                .orElse(false);
        boolean jobAsked = j.expeditedRequeue();
        String why = "job " + j.jobId() + " is requeueable (Requeue=1)";
        if (clusterAllows && jobAsked) {
            return new Verdict(true, true, why + "; expedited (--requeue=expedite): eligible to start again at once");
        }
        return new Verdict(
                true,
                false,
                why
                        + (clusterAllows
                                ? "; it waits out Slurm's requeue delay: submit with --requeue=expedite to start again at once"
                                : "; it waits out Slurm's requeue delay (about 2 minutes by default)"));
    }

    private static Optional<SlurmVersion> version(String text) {
        try {
            return Optional.of(SlurmVersion.parse(text));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * Requeues the job when {@link #decide} says so, after having the faulty nodes marked FAIL
     * (unless recovery already did); true once Slurm took the requeue (it then kills this batch
     * script, and the supervisor with it), false when the job is to end as the policy said.
     */
    boolean tryRequeue(JobId jobId, List<String> faulty, boolean alreadyMarked, String what) {
        if (stopRequested.getAsBoolean()) {
            return false;
        }
        Optional<Job> job = Optional.empty();
        Optional<SlurmConfig> config = Optional.empty();
        if (enabled()) {
            try {
                job = slurm.job(jobId);
                config = Optional.of(slurm.config());
            } catch (SlurmException e) {
                log.say("could not read job " + jobId + " or the cluster's configuration from Slurm (" + e.getMessage()
                        + ")");
            }
        }
        Verdict verdict = decide(setting, job, config);
        if (!verdict.requeue()) {
            log.say(what + "; not requeueing the job: " + verdict.why());
            return false;
        }
        String nodes = faulty.isEmpty() ? "" : Hostlist.compress(faulty);
        if (!alreadyMarked && !faulty.isEmpty()) {
            markFirst(jobId, faulty);
        }
        boolean agentExpedites = !verdict.expedited() && agentExpedites(jobId);
        timeline.record(
                EventHistory.Kind.REQUEUE,
                OptionalLong.empty(),
                "reason",
                what,
                "path",
                "node-fault",
                "faultyNodes",
                nodes,
                "expedited",
                Boolean.toString(verdict.expedited()),
                "agentExpedites",
                Boolean.toString(agentExpedites));
        log.say(what + "; no repair is left: requeueing job " + jobId
                + (nodes.isEmpty() ? "" : " with " + nodes + " kept out") + " (" + verdict.why()
                + (agentExpedites ? "; the agent starts it again at once" : "") + ")");
        if (!faulty.isEmpty()) {
            releaseDeadNodes(jobId, faulty);
        }
        WriteResult requeue = control.requeue(jobId);
        if (!requeue.ok() && !requeuedMeanwhile(jobId, job.get().restarts())) {
            log.say("Slurm did not requeue job " + jobId + " ("
                    + requeue.diagnosticTail().strip() + ")");
            return false;
        }
        return true;
    }

    /**
     * Where Slurm itself would hold the requeued job for its requeue delay, the batch host's agent,
     * which outlives this supervisor, is asked to start it at once; true when it took the request.
     */
    private boolean agentExpedites(JobId jobId) {
        if (marker.isEmpty()) {
            return false;
        }
        try {
            AgentResponse answer = marker.get().expediteRequeue(jobId.toString());
            if (!answer.ok()) {
                log.say("the agent will not start the requeued job at once (" + answer.message()
                        + "); it waits out Slurm's requeue delay");
            }
            return answer.ok();
        } catch (RuntimeException e) {
            log.say("the agent could not be asked to start the requeued job at once (" + e.getMessage()
                    + "); it waits out Slurm's requeue delay");
            return false;
        }
    }

    /** The DOWN mark can have Slurm requeue the job itself (node failure) before our request arrives. */
    private boolean requeuedMeanwhile(JobId jobId, int restartsBefore) {
        try {
            return slurm.job(jobId).map(j -> j.restarts() > restartsBefore).orElse(false);
        } catch (SlurmException e) {
            return false;
        }
    }

    /**
     * A requeued job stays COMPLETING, and cannot start again, while one of its nodes is dead and
     * not yet DOWN (seen on 22.05: over 7 minutes with SlurmdTimeout=300). The agent marks such a
     * node DOWN, as slurmctld would at SlurmdTimeout, and refuses for a node whose slurmd answers
     * (which lets go of the job by itself). Slurm may then requeue a job without --no-kill itself,
     * ending this script before the requeue below.
     */
    private void releaseDeadNodes(JobId jobId, List<String> faulty) {
        if (marker.isEmpty()) {
            return;
        }
        try {
            marker.get().confirmAndMarkDown(jobId.toString(), faulty);
        } catch (RuntimeException e) {
            log.say("the agent could not mark " + Hostlist.compress(faulty) + " down (" + e.getMessage()
                    + "); the requeued job waits until Slurm declares it DOWN");
        }
    }

    /** The scheduler avoids a FAIL node; without the mark a revived node could take the requeued job again. */
    private void markFirst(JobId jobId, List<String> faulty) {
        if (marker.isEmpty()) {
            log.say("cannot mark " + Hostlist.compress(faulty) + " (no agent is set up); only Slurm's own DOWN keeps"
                    + " it out of the requeued job");
            return;
        }
        try {
            marker.get().confirmAndMark(jobId.toString(), faulty);
        } catch (RuntimeException e) {
            log.say("the agent could not mark " + Hostlist.compress(faulty) + " (" + e.getMessage()
                    + "); only Slurm's own DOWN keeps it out of the requeued job");
        }
    }
}
