package org.slurmautoresume.slurm.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.StepId;

/**
 * Every command the toolkit runs that changes Slurm's state, built here and only here as an argv
 * list whose words are constants of this class, validated names ({@link JobId}, {@link StepId},
 * node names by Slurm's hostname rules) or the caller's reason text as one argument. Reads are
 * {@link SlurmClient}'s.
 *
 * <p>No write throws for a failed command: the {@link WriteResult} says what ran and how it
 * ended, and {@link WriteResult#orThrow} turns it into a {@link SlurmException} naming the
 * command and the tail of its stderr where the caller wants that.
 */
public final class SlurmControl {

    /** Node updates answer at once when the controller is up; waiting longer only hides an outage. */
    public static final Duration NODE_WRITE_TIMEOUT = Duration.ofSeconds(30);
    /** Job updates can stall 5 s on a database index without accounting (see {@link #takeAllNodes}). */
    public static final Duration JOB_WRITE_TIMEOUT = CommandRequest.DEFAULT_TIMEOUT;

    /** The programs to run: plain names looked up on PATH, or paths the caller found. */
    public record Programs(String scontrol, String scancel, String salloc) {

        public static final Programs DEFAULT = new Programs("scontrol", "scancel", "salloc");

        public Programs {
            Objects.requireNonNull(scontrol, "scontrol");
            Objects.requireNonNull(scancel, "scancel");
            Objects.requireNonNull(salloc, "salloc");
        }

        public static Programs withScontrol(String scontrol) {
            return new Programs(scontrol, DEFAULT.scancel(), DEFAULT.salloc());
        }
    }

    private static final String DONOR_PREFIX = "autoresume-donor-";

    private final CommandRunner runner;
    private final Programs programs;

    public SlurmControl(CommandRunner runner) {
        this(runner, Programs.DEFAULT);
    }

    public SlurmControl(CommandRunner runner, Programs programs) {
        this.runner = Objects.requireNonNull(runner);
        this.programs = Objects.requireNonNull(programs);
    }

    /** {@code scontrol update nodename=N state=fail|down|drain reason=R}. */
    public WriteResult mark(NodeMark mark) {
        return run(markArgv(mark), NODE_WRITE_TIMEOUT);
    }

    /** The argv {@link #mark} runs, for a dry run to show. */
    public List<String> markArgv(NodeMark mark) {
        return List.of(
                programs.scontrol(),
                "update",
                "nodename=" + mark.node(),
                "state=" + mark.state().word(),
                "reason=" + mark.reason());
    }

    /** {@code scontrol update nodename=N state=resume}: back in service, the reason cleared by Slurm. */
    public WriteResult resume(String node) {
        return run(resumeArgv(node), NODE_WRITE_TIMEOUT);
    }

    /** The argv {@link #resume} runs, for a dry run to show. */
    public List<String> resumeArgv(String node) {
        requireNode(node);
        return List.of(programs.scontrol(), "update", "nodename=" + node, "state=resume");
    }

    /**
     * {@code scontrol reboot ASAP nextstate=RESUME reason=R NODES}: each node drains, reboots once
     * its jobs end and returns to service. One command for all, so slurmctld schedules them together.
     */
    public WriteResult rebootWhenIdle(List<String> nodes, String reason) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("no nodes to reboot");
        }
        nodes.forEach(SlurmControl::requireNode);
        requireReason(reason);
        return run(
                List.of(
                        programs.scontrol(),
                        "reboot",
                        "ASAP",
                        "nextstate=RESUME",
                        "reason=" + reason,
                        Hostlist.compress(nodes)),
                NODE_WRITE_TIMEOUT);
    }

    /** {@code scontrol requeue JOB}: the whole batch job back to the queue. */
    public WriteResult requeue(JobId job) {
        return run(List.of(programs.scontrol(), "requeue", job.toString()), JOB_WRITE_TIMEOUT);
    }

    /** {@code scancel JOB}. */
    /**
     * {@code scontrol update jobid=JOB StartTime=now}: a pending job may start as soon as the
     * scheduler finds it room (its owner may ask this of their own job).
     */
    public WriteResult startNow(JobId job) {
        return run(List.of(programs.scontrol(), "update", "jobid=" + job, "StartTime=now"), JOB_WRITE_TIMEOUT);
    }

    public WriteResult cancel(JobId job) {
        return cancel(job, NODE_WRITE_TIMEOUT);
    }

    /** {@code scancel JOB} with the caller's timeout. */
    public WriteResult cancel(JobId job, Duration timeout) {
        return run(List.of(programs.scancel(), job.toString()), timeout);
    }

    /** {@code scancel JOB.STEP}: the step ends, the job and its other steps run on. */
    public WriteResult cancel(StepId step) {
        return run(List.of(programs.scancel(), step.toString()), JOB_WRITE_TIMEOUT);
    }

    /** {@code scontrol update jobid=JOB NodeList=KEEP}: the job shrinks to {@code keep}. */
    public WriteResult shrinkTo(JobId job, List<String> keep) {
        if (keep.isEmpty()) {
            throw new IllegalArgumentException("job " + job + " cannot shrink to no nodes");
        }
        keep.forEach(SlurmControl::requireNode);
        return resize(job, "NodeList=" + Hostlist.compress(keep));
    }

    /** {@code scontrol update jobid=DONOR NumNodes=0}: an expansion donor gives its nodes away. */
    public WriteResult giveAwayNodes(JobId donor) {
        return resize(donor, "NumNodes=0");
    }

    /**
     * {@code scontrol update jobid=JOB NumNodes=ALL}: the job takes every node its donors gave
     * up. Without accounting this stalls about 5 s waiting for a database index.
     */
    public WriteResult takeAllNodes(JobId job) {
        return resize(job, "NumNodes=ALL");
    }

    /**
     * {@code scontrol update jobid=JOB TimeLimit=M}: an owner may only shorten a running job's
     * limit. Slurm moves its EndTime to StartTime + M minutes (never before now).
     *
     * <p>Why the donor needs it: an expand dependency replaces whatever limit salloc asked for
     * with the target's remaining time (a year for an unlimited job), and emptying the donor
     * marks it COMPLETED without touching its EndTime, so slurmctld would keep its record until
     * that EndTime, long past MinJobAge. A finished job's limit can no longer be changed, by
     * anyone: this must happen before the donor is emptied.
     */
    public WriteResult shortenTimeLimit(JobId job, int minutes) {
        if (minutes < 1) {
            throw new IllegalArgumentException("a time limit of at least one minute is needed, not " + minutes);
        }
        return run(List.of(programs.scontrol(), "update", "jobid=" + job, "TimeLimit=" + minutes), JOB_WRITE_TIMEOUT);
    }

    /**
     * {@code salloc --no-shell -N<n> -w NODES --dependency=expand:JOB --job-name=autoresume-donor-JOB
     * [--partition=P]}: the donor allocation for job expansion. The name tells a person reading
     * squeue what the job is for; the sweep never acts on a job because of it (anyone can name a
     * job so). {@code partition} is empty for the default one.
     */
    public WriteResult allocateExpansionDonor(JobId job, List<String> nodes, String partition, Duration timeout) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("no nodes to allocate for job " + job);
        }
        nodes.forEach(SlurmControl::requireNode);
        List<String> argv = new ArrayList<>(List.of(
                programs.salloc(),
                "--no-shell",
                "-N" + nodes.size(),
                "-w",
                Hostlist.compress(nodes),
                "--dependency=expand:" + job,
                "--job-name=" + donorName(job)));
        if (!partition.isEmpty()) {
            if (partition.startsWith("-") || partition.chars().anyMatch(c -> c <= ' ' || c == ',')) {
                throw new IllegalArgumentException("not a partition name: \"" + partition + "\"");
            }
            argv.add("--partition=" + partition);
        }
        return run(argv, timeout);
    }

    /** The job name of {@code job}'s expansion donor. */
    public static String donorName(JobId job) {
        return DONOR_PREFIX + job;
    }

    /** The job a donor was made for, read back from the donor's name; empty for any other name. */
    public static Optional<JobId> donorTarget(String jobName) {
        if (jobName == null || !jobName.startsWith(DONOR_PREFIX)) {
            return Optional.empty();
        }
        return JobId.tryParse(jobName.substring(DONOR_PREFIX.length()));
    }

    /**
     * scontrol writes {@code slurm_job_N_resize.sh|csh} into the working directory whenever it
     * changes a job's size and finds SLURM_JOBID set, which inside a job it is: the user's
     * directory would fill with them at every recovery. Without that variable it writes none.
     */
    private WriteResult resize(JobId job, String change) {
        return run(
                List.of("env", "-u", "SLURM_JOBID", programs.scontrol(), "update", "jobid=" + job, change),
                JOB_WRITE_TIMEOUT);
    }

    private WriteResult run(List<String> argv, Duration timeout) {
        CommandRequest request = new CommandRequest(argv, timeout, Map.of());
        try {
            CommandResult result = Objects.requireNonNull(runner.run(request), "the command runner returned no result");
            return WriteResult.ran(result);
        } catch (CommandException e) {
            return WriteResult.notStarted(request, e);
        }
    }

    private static void requireNode(String node) {
        if (!Hostlist.isValidHostname(node)) {
            throw new IllegalArgumentException("not a valid node name: \"" + node + "\"");
        }
    }

    private static void requireReason(String reason) {
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("a reason is needed");
        }
    }
}
