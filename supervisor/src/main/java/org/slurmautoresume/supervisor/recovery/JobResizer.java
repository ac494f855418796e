package org.slurmautoresume.supervisor.recovery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;

/**
 * Changes the node set of a running job, as its owner: shrink it to the nodes that are still
 * healthy, and grow it back onto replacement nodes through a donor allocation with an
 * {@code expand} dependency (Slurm's job expansion, needs {@code permit_job_expansion}).
 *
 * <p>Slurm's answers to these updates are unreliable under accounting_storage/none (an update
 * that took effect can exit 1 with "the DB index is being set"), so every change is read back
 * from {@code scontrol show job} and judged by the job's node list, not by exit codes. The donor
 * job is cancelled on every path, also when growing fails or is interrupted.
 */
public final class JobResizer {

    private static final Pattern GRANTED = Pattern.compile("(?:Granted|Pending) job allocation (\\d+)");

    private final CommandRunner runner;
    private final SlurmClient slurm;
    private final Duration allocationTimeout;
    /** Jobs this resizer has grown: Slurm treats them differently from then on. */
    private final Set<String> grown = ConcurrentHashMap.newKeySet();

    public JobResizer(CommandRunner runner, SlurmClient slurm, Duration allocationTimeout) {
        this.runner = Objects.requireNonNull(runner);
        this.slurm = Objects.requireNonNull(slurm);
        this.allocationTimeout = Objects.requireNonNull(allocationTimeout);
    }

    /**
     * Drops the given nodes from the job. The batch host cannot be dropped (Slurm refuses, and
     * the batch script runs there): that is reported as an error naming it.
     */
    public Job shrink(String jobId, List<String> drop) {
        Job job = slurm.requireJob(jobId);
        List<String> current = Hostlist.expand(job.nodeList());
        Set<String> dropSet = new LinkedHashSet<>(drop);
        if (job.batchScriptHost().isPresent() && dropSet.contains(job.batchScriptHost().get())) {
            throw new SlurmException(SlurmException.Kind.COMMAND_FAILED, "cannot drop " + job.batchScriptHost().get()
                    + " from job " + jobId + ": it is the batch host, where the job script itself runs");
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
        CommandResult result = scontrol("update", "jobid=" + jobId, "NodeList=" + Hostlist.compress(keep));
        Job after = slurm.requireJob(jobId);
        if (!Hostlist.expand(after.nodeList()).equals(keep)) {
            String why = result.diagnosticTail();
            if ((why.contains("DB index") || grown.contains(jobId)) && withoutAccounting()) {
                // 22.05 words this refusal differently from run to run ("the DB index is being
                // set", "Unexpected message received"); what explains it is that we grew the job.
                why = "Slurm refuses changes to a job that was grown once when it keeps no accounting"
                        + " (accounting_storage/none; slurmdbd lifts this): " + why.strip();
            }
            throw new SlurmException(SlurmException.Kind.COMMAND_FAILED, "job " + jobId + " did not shrink to "
                    + Hostlist.compress(keep) + " (it has " + after.nodeList() + "): " + why);
        }
        return after;
    }

    /**
     * Grows the job onto the given nodes: allocates them in a donor job that depends on
     * {@code expand:JOB}, empties the donor, and asks the job to take all it was given. Returns
     * the job as Slurm then reports it; throws if the nodes did not join.
     */
    public Job grow(String jobId, List<String> add) {
        if (add.isEmpty()) {
            return slurm.requireJob(jobId);
        }
        for (String node : add) {
            if (!Hostlist.isValidHostname(node)) {
                throw new SlurmException(SlurmException.Kind.NOT_FOUND, "not a valid node name: \"" + node + "\"");
            }
        }
        Job job = slurm.requireJob(jobId);
        Optional<String> donor = Optional.empty();
        try {
            donor = allocateDonor(job, add);
            CommandResult update = scontrol("update", "jobid=" + donor.get(), "NumNodes=0");
            Job after = slurm.requireJob(jobId);
            if (!Hostlist.expand(after.nodeList()).containsAll(add)) {
                // Emptying the donor moves its nodes to the job at once (22.05); the documented
                // `NumNodes=ALL` on the job is only asked for when that did not happen, because
                // without accounting it stalls 5 s waiting for a database index.
                update = scontrol("update", "jobid=" + jobId, "NumNodes=ALL");
                after = slurm.requireJob(jobId);
            }
            if (!Hostlist.expand(after.nodeList()).containsAll(add)) {
                throw new SlurmException(SlurmException.Kind.COMMAND_FAILED, "job " + jobId + " did not take "
                        + Hostlist.compress(add) + " (it has " + after.nodeList() + "): " + update.diagnosticTail());
            }
            grown.add(jobId);
            return after;
        } finally {
            donor.ifPresent(this::cancelQuietly);
        }
    }

    private boolean withoutAccounting() {
        try {
            return slurm.config().keepsNoAccounting();
        } catch (SlurmException e) {
            return false;
        }
    }

    private Optional<String> allocateDonor(Job job, List<String> add) {
        List<String> argv = new ArrayList<>(List.of("salloc", "--no-shell",
                "-N" + add.size(), "-w", Hostlist.compress(add),
                "--dependency=expand:" + job.jobId(),
                "--job-name=autoresume-donor-" + job.jobId()));
        if (!job.partition().isEmpty()) {
            argv.add("--partition=" + job.partition());
        }
        CommandResult result = runner.run(new CommandRequest(argv, allocationTimeout, Map.of()));
        Matcher granted = GRANTED.matcher(result.stderr() + "\n" + result.stdout());
        Optional<String> donor = granted.find() ? Optional.of(granted.group(1)) : Optional.empty();
        if (donor.isEmpty()) {
            donor = findDonorByName(job.jobId());
        }
        if (!result.succeeded() || donor.isEmpty()) {
            donor.ifPresent(this::cancelQuietly);
            String why = result.timedOut() ? "no allocation within " + allocationTimeout.toSeconds() + " s"
                    : result.diagnosticTail();
            throw new SlurmException(result.timedOut() ? SlurmException.Kind.TIMEOUT : SlurmException.Kind.COMMAND_FAILED,
                    "could not allocate " + Hostlist.compress(add) + " to grow job " + job.jobId() + ": " + why);
        }
        return donor;
    }

    /** When salloc said nothing usable (killed at its timeout, say), find the donor by its name. */
    private Optional<String> findDonorByName(String jobId) {
        CommandResult result = runner.run(CommandRequest.of("squeue", "-h", "-o", "%A",
                "--name=autoresume-donor-" + jobId));
        if (!result.succeeded()) {
            return Optional.empty();
        }
        return result.stdout().lines().map(String::strip).filter(s -> s.matches("\\d+")).findFirst();
    }

    private void cancelQuietly(String donorId) {
        // An emptied donor is already COMPLETED; scancel then only says so.
        runner.run(CommandRequest.of("scancel", donorId));
    }

    /**
     * scontrol writes {@code slurm_job_N_resize.sh|csh} into the working directory whenever it
     * changes a job's size and finds SLURM_JOBID set, which inside a job it is: the user's
     * directory would fill with them at every recovery. Without that variable it writes none.
     */
    private CommandResult scontrol(String... args) {
        List<String> argv = new ArrayList<>(List.of("env", "-u", "SLURM_JOBID", "scontrol"));
        argv.addAll(List.of(args));
        return runner.run(CommandRequest.of(argv));
    }
}
