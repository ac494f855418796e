package org.slurmautoresume.nodeops.sweep;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.nodeops.admin.NodeUpdater;
import org.slurmautoresume.nodeops.health.NodeHealth;
import org.slurmautoresume.nodeops.lemon.FaultHistory;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobListing;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.probe.TcpNodeProber;

/**
 * One pass: take the lock (unless a dry run, which changes nothing and may run beside a real
 * sweep), read every node and job once, plan, apply, report.
 */
public final class Sweep {

    private static final Logger LOG = LoggerFactory.getLogger(Sweep.class);

    private final SlurmClient slurm;
    private final SweepExecutor executor;
    private final Supplier<LocalDateTime> clock;

    public Sweep(SlurmClient slurm, SweepExecutor executor, Supplier<LocalDateTime> clock) {
        this.slurm = Objects.requireNonNull(slurm);
        this.executor = Objects.requireNonNull(executor);
        this.clock = Objects.requireNonNull(clock);
    }

    /**
     * The sweep a policy asks for: nodes changed with {@code scontrol} through {@code runner},
     * returning nodes checked by the policy's {@code healthCommand}, or else by a connection to
     * their slurmd. What {@code autoresume sweep} and the agent's scheduled sweeps both run.
     */
    public static Sweep forPolicy(
            SlurmClient slurm, CommandRunner runner, SweepPolicy policy, Supplier<LocalDateTime> clock) {
        NodeHealth health = policy.healthCommand().isEmpty()
                ? new SlurmdProbeHealth(new TcpNodeProber(Duration.ofSeconds(5)))
                : new CommandNodeHealth(runner, policy.healthCommand(), policy.healthTimeout());
        return new Sweep(slurm, new SweepExecutor(new NodeUpdater(runner), health), clock);
    }

    /** Throws {@link SweepLock.BusyException} when another sweep holds {@code lockFile}. */
    public SweepReport run(SweepPolicy policy, boolean dryRun, Path lockFile) {
        if (dryRun) {
            return pass(policy, true);
        }
        try (SweepLock lock = SweepLock.acquire(lockFile)) {
            return pass(policy, false);
        }
    }

    /**
     * A text listing checked against squeue's ids, which hold no user text: a whole record a
     * user wrote into a job's name, with an invented id, is reported, not swept. JSON needs no
     * check. Where squeue cannot be asked the listing is swept as read, and the log says so.
     */
    private JobListing crossChecked(JobListing listing) {
        if (listing.jobs().isEmpty() || !slurm.readsText()) {
            return listing;
        }
        Optional<Set<String>> ids = slurm.listedJobIds();
        if (ids.isEmpty()) {
            LOG.warn("squeue could not list the job ids: the job listing is not checked against them");
            return listing;
        }
        return listing.crossChecked(ids.get());
    }

    private SweepReport pass(SweepPolicy policy, boolean dryRun) {
        List<Node> nodes = slurm.nodes();
        // One job's unreadable record (its owner wrote a line break into its name) is that job's
        // problem: it is reported, and every other job and node is swept as usual.
        JobListing listing = crossChecked(slurm.readJobs());
        List<Job> jobs = listing.jobs();
        LocalDateTime now = clock.get();
        SweepPlanner planner = new SweepPlanner(policy);
        FaultHistory history = FaultHistory.read(slurm, planner.nodesToJudge(nodes), policy.lemon(), now);
        SweepPlan plan = planner.plan(nodes, jobs, !listing.unreadable().isEmpty(), history, now);
        return executor.execute(plan, nodes, jobs.size(), now, dryRun).withUnreadableJobs(listing.unreadable());
    }
}
