package org.slurmautoresume.supervisor.recovery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.client.WriteResult;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;

/**
 * Changes the node set of a running job, as its owner: shrink it to the nodes that are still
 * healthy, and grow it back onto replacement nodes through a donor allocation with an
 * {@code expand} dependency (Slurm's job expansion, needs {@code permit_job_expansion}).
 *
 * <p>Slurm's answers to these updates are unreliable under accounting_storage/none (an update
 * that took effect can exit 1 with "the DB index is being set"), so every change is read back
 * from {@code scontrol show job} and judged by the job's node list, not by exit codes. The donor
 * job is cancelled on every path, also when growing fails or is interrupted, and gets a limit of
 * {@link #DONOR_TIME_LIMIT_MINUTES} before it is emptied, so its record leaves slurmctld
 * MinJobAge after that instead of a year later (docs/slurm-behaviour.md, "Donor records").
 */
public final class JobResizer {

    /**
     * The donor's time limit from its start. The merge follows the grant within a second; a
     * minute leaves room for a slow controller, and past it Slurm would end the donor, which only
     * makes this growth fail (and be reported), never harms the job.
     */
    public static final int DONOR_TIME_LIMIT_MINUTES = 1;

    private static final Pattern GRANTED = Pattern.compile("(?:Granted|Pending) job allocation (\\d+)");

    private final CommandRunner runner;
    private final SlurmControl control;
    private final SlurmClient slurm;
    /**
     * How long a shrink that slurmctld refuses because the job has no accounting record yet ("the
     * DB index is being set") is asked again: right after slurmctld starts, slurmdbd can take
     * tens of seconds to give a running job its index, and until then every update of the job is
     * refused. Giving up there meant a requeue of a job that only had to lose a node.
     */
    static final Duration DB_INDEX_WAIT = Duration.ofSeconds(45);

    private static final Duration DB_INDEX_PAUSE = Duration.ofSeconds(1);

    private final Duration allocationTimeout;
    private final Duration dbIndexWait;
    private final Duration dbIndexPause;
    /** Jobs this resizer has grown: Slurm treats them differently from then on. */
    private final Set<JobId> grown = ConcurrentHashMap.newKeySet();

    public JobResizer(CommandRunner runner, SlurmClient slurm, Duration allocationTimeout) {
        this(runner, slurm, allocationTimeout, DB_INDEX_WAIT, DB_INDEX_PAUSE);
    }

    /** With the wait for a job's accounting record, and the pause between asks, a test sets. */
    JobResizer(
            CommandRunner runner,
            SlurmClient slurm,
            Duration allocationTimeout,
            Duration dbIndexWait,
            Duration dbIndexPause) {
        this.runner = Objects.requireNonNull(runner);
        this.control = new SlurmControl(runner);
        this.slurm = Objects.requireNonNull(slurm);
        this.allocationTimeout = Objects.requireNonNull(allocationTimeout);
        this.dbIndexWait = Objects.requireNonNull(dbIndexWait);
        this.dbIndexPause = Objects.requireNonNull(dbIndexPause);
    }

    /**
     * Drops the given nodes from the job. The batch host cannot be dropped (Slurm refuses, and
     * the batch script runs there): that is reported as an error naming it.
     */
    public Job shrink(JobId jobId, List<String> drop) {
        Job job = slurm.requireJob(jobId);
        List<String> current = Hostlist.expand(job.nodeList());
        Set<String> dropSet = new LinkedHashSet<>(drop);
        if (job.batchScriptHost().isPresent()
                && dropSet.contains(job.batchScriptHost().get())) {
            throw new SlurmException(
                    SlurmException.Kind.COMMAND_FAILED,
                    "cannot drop " + job.batchScriptHost().get() + " from job " + jobId
                            + ": it is the batch host, where the job script itself runs");
        }
        List<String> keep = new ArrayList<>();
        for (String node : current) {
            if (!dropSet.contains(node)) {
                keep.add(node);
            }
        }
        if (keep.size() == current.size()) {
            return job;
        }
        if (keep.isEmpty()) {
            throw new SlurmException(SlurmException.Kind.COMMAND_FAILED, "job " + jobId + " would have no nodes left");
        }
        WriteResult result = control.shrinkTo(jobId, keep);
        Job after = slurm.requireJob(jobId);
        long deadline = System.nanoTime() + dbIndexWait.toNanos();
        // Without accounting a grown job's index never comes (explained below): no wait then.
        boolean indexComes =
                !grown.contains(jobId) && result.diagnosticTail().contains("DB index") && !withoutAccounting();
        while (indexComes
                && !Hostlist.expand(after.nodeList()).equals(keep)
                && result.diagnosticTail().contains("DB index")
                && System.nanoTime() < deadline) {
            // The job's accounting record is on its way (slurmctld just started): ask again.
            pause();
            result = control.shrinkTo(jobId, keep);
            after = slurm.requireJob(jobId);
        }
        if (!Hostlist.expand(after.nodeList()).equals(keep)) {
            String why = result.diagnosticTail();
            if ((why.contains("DB index") || grown.contains(jobId)) && withoutAccounting()) {
                // 22.05 words this refusal differently from run to run ("the DB index is being
                // set", "Unexpected message received"); what explains it is that we grew the job.
                why = "Slurm refuses changes to a job that was grown once when it keeps no accounting"
                        + " (accounting_storage/none; slurmdbd lifts this): " + why.strip();
            }
            throw new SlurmException(
                    SlurmException.Kind.COMMAND_FAILED,
                    "job " + jobId + " did not shrink to " + Hostlist.compress(keep) + " (it has " + after.nodeList()
                            + "): " + why);
        }
        return after;
    }

    /**
     * Grows the job onto the given nodes: allocates them in a donor job that depends on
     * {@code expand:JOB}, empties the donor, and asks the job to take all it was given. Returns
     * the job as Slurm then reports it; throws if the nodes did not join.
     */
    public Job grow(JobId jobId, List<String> add) {
        if (add.isEmpty()) {
            return slurm.requireJob(jobId);
        }
        for (String node : add) {
            if (!Hostlist.isValidHostname(node)) {
                throw new SlurmException(SlurmException.Kind.NOT_FOUND, "not a valid node name: \"" + node + "\"");
            }
        }
        Job job = slurm.requireJob(jobId);
        Optional<JobId> donor = Optional.empty();
        try {
            donor = allocateDonor(jobId, job, add);
            // Not checked: a refusal costs only a record that lingers (the sweep reports it), and
            // the growth matters more than the record.
            control.shortenTimeLimit(donor.get(), DONOR_TIME_LIMIT_MINUTES);
            WriteResult update = control.giveAwayNodes(donor.get());
            Job after = slurm.requireJob(jobId);
            if (!Hostlist.expand(after.nodeList()).containsAll(add)) {
                // Emptying the donor moves its nodes to the job at once (22.05); the documented
                // `NumNodes=ALL` on the job is only asked for when that did not happen, because
                // without accounting it stalls 5 s waiting for a database index.
                update = control.takeAllNodes(jobId);
                after = slurm.requireJob(jobId);
            }
            if (!Hostlist.expand(after.nodeList()).containsAll(add)) {
                throw new SlurmException(
                        SlurmException.Kind.COMMAND_FAILED,
                        "job " + jobId + " did not take " + Hostlist.compress(add) + " (it has " + after.nodeList()
                                + "): " + update.diagnosticTail());
            }
            grown.add(jobId);
            return after;
        } finally {
            donor.ifPresent(this::cancelQuietly);
        }
    }

    private void pause() {
        try {
            Thread.sleep(dbIndexPause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SlurmException(SlurmException.Kind.COMMAND_FAILED, "interrupted while waiting to shrink the job");
        }
    }

    private boolean withoutAccounting() {
        try {
            return slurm.config().keepsNoAccounting();
        } catch (SlurmException e) {
            return false;
        }
    }

    private Optional<JobId> allocateDonor(JobId jobId, Job job, List<String> add) {
        WriteResult result = control.allocateExpansionDonor(jobId, add, job.partition(), allocationTimeout);
        Optional<JobId> donor = result.result().flatMap(JobResizer::grantedJob);
        if (donor.isEmpty() && result.result().isPresent()) {
            donor = findDonorByName(jobId);
        }
        boolean timedOut = result.result().map(CommandResult::timedOut).orElse(false);
        if (!result.ok() || donor.isEmpty()) {
            donor.ifPresent(this::cancelQuietly);
            String why =
                    timedOut ? "no allocation within " + allocationTimeout.toSeconds() + " s" : result.diagnosticTail();
            throw new SlurmException(
                    timedOut ? SlurmException.Kind.TIMEOUT : SlurmException.Kind.COMMAND_FAILED,
                    "could not allocate " + Hostlist.compress(add) + " to grow job " + job.jobId() + ": " + why);
        }
        return donor;
    }

    /** The job id salloc reports ("Granted job allocation 17", or "Pending" while it waits). */
    static Optional<JobId> grantedJob(CommandResult salloc) {
        Matcher granted = GRANTED.matcher(salloc.stderr() + "\n" + salloc.stdout());
        return granted.find() ? JobId.tryParse(granted.group(1)) : Optional.empty();
    }

    /** When salloc said nothing usable (killed at its timeout, say), find the donor by its name. */
    private Optional<JobId> findDonorByName(JobId jobId) {
        CommandResult result =
                runner.run(CommandRequest.of("squeue", "-h", "-o", "%A", "--name=" + SlurmControl.donorName(jobId)));
        if (!result.succeeded()) {
            return Optional.empty();
        }
        return result.stdout()
                .lines()
                .map(String::strip)
                .map(JobId::tryParse)
                .flatMap(Optional::stream)
                .findFirst();
    }

    private void cancelQuietly(JobId donor) {
        // An emptied donor is already COMPLETED; scancel then only says so.
        control.cancel(donor, SlurmControl.JOB_WRITE_TIMEOUT);
    }
}
