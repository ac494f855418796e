package org.slurmautoresume.agent.server;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.client.WriteResult;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.JobState;

/**
 * Has a requeued job start again at once instead of after Slurm's requeue delay, for a job
 * whose supervisor asked just before it requeued the job (and was killed with it). Slurm holds
 * a requeued batch job until its step credentials have expired ({@code BeginTime} now plus
 * {@code AuthInfo=cred_expire}, 120 s by default); releases from 25.11 offer
 * {@code --requeue=expedite} for this, older ones nothing. The job's owner may set the
 * {@code StartTime} of their own pending job, so this does for them only what they could do
 * themselves, had their supervisor outlived the job.
 *
 * <p>It acts once per request, and only when the same job (id and owner) is back in the queue
 * after a new requeue (its restart count grown), PENDING with reason {@code BeginTime}, no longer
 * completing, its start no further off than Slurm's own hold: a job an administrator held, or
 * whose start someone moved later, is left as it is. It waits {@link #SETTLE} after seeing the
 * job pending, so that the new launch credential is stamped seconds after slurmd's revocation of
 * the old one (the order slurmctld's own hold protects). Requests lapse after
 * {@link #LAPSE}. The number of jobs it follows is bounded.
 */
final class RequeueExpediter {

    private static final Logger LOG = LoggerFactory.getLogger(RequeueExpediter.class);

    /** How long after the job is seen pending the start is moved. */
    static final Duration SETTLE = Duration.ofSeconds(2);
    /** How long a request waits for its job to be requeued and pending. */
    static final Duration LAPSE = Duration.ofMinutes(10);
    /** A start further off than this was not set by Slurm's requeue hold (cred_expire 120 s by default). */
    static final Duration LONGEST_HOLD = Duration.ofMinutes(20);
    /** The jobs followed at once, at most: more requests are refused. */
    static final int CAPACITY = 256;

    /** One job followed: its owner and restart count when asked, when it lapses, when first seen pending. */
    private record Followed(JobId job, long owner, int restartsBefore, long lapseAtNanos, long pendingSinceNanos) {}

    /** How often the jobs followed are read (one job read each, scoped to the job). */
    static final Duration PACE = Duration.ofSeconds(1);

    private final SlurmClient slurm;
    private final SlurmControl control;
    private final LongSupplier nanoClock;
    private final boolean ownThread;
    private final Map<String, Followed> followed = new LinkedHashMap<>();
    /** Where each moved start is recorded; none until the agent's service sets its audit log. */
    private volatile AuditLog audit;

    private Thread looking;

    /**
     * {@code ownThread}: whether {@link #follow} starts a thread that runs {@link #round} at
     * {@link #PACE} while any job is followed (the agent's); tests call {@code round} themselves.
     */
    RequeueExpediter(SlurmClient slurm, SlurmControl control, LongSupplier nanoClock, boolean ownThread) {
        this.slurm = Objects.requireNonNull(slurm);
        this.control = Objects.requireNonNull(control);
        this.nanoClock = Objects.requireNonNull(nanoClock);
        this.ownThread = ownThread;
    }

    void recordInto(AuditLog audit) {
        this.audit = audit;
    }

    /**
     * Follows {@code job} (running, requeueable, read afresh with the caller's right to it) until
     * it is requeued; empty when taken, else why not.
     */
    synchronized Optional<String> follow(Job job) {
        if (!job.batch() || !job.requeue()) {
            return Optional.of("job " + job.jobId() + " cannot be requeued (a batch job with Requeue=1 can)");
        }
        if (job.state() != JobState.RUNNING) {
            return Optional.of("job " + job.jobId() + " is " + job.state() + ", not RUNNING");
        }
        if (!followed.containsKey(job.jobId()) && followed.size() >= CAPACITY) {
            return Optional.of("the agent already follows " + CAPACITY + " requeued jobs; try again later");
        }
        followed.put(
                job.jobId(),
                new Followed(
                        JobId.parse(job.jobId()),
                        JobAuthority.owner(job),
                        job.restarts(),
                        nanoClock.getAsLong() + LAPSE.toNanos(),
                        -1));
        if (ownThread && looking == null) {
            looking = new Thread(this::lookWhileFollowing, "requeue-expediter");
            looking.setDaemon(true);
            looking.start();
        }
        return Optional.empty();
    }

    private void lookWhileFollowing() {
        try {
            while (true) {
                Thread.sleep(PACE.toMillis());
                round();
                synchronized (this) {
                    if (followed.isEmpty()) {
                        looking = null; // under the lock follow() starts the next one with
                        return;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.error("the watch of requeued jobs stopped", e);
        }
        synchronized (this) {
            looking = null;
        }
    }

    synchronized boolean following() {
        return !followed.isEmpty();
    }

    /** One look at every job followed: moves the start of each that is ready; forgets those done or lapsed. */
    void round() {
        List<Followed> now;
        synchronized (this) {
            now = List.copyOf(followed.values());
        }
        for (Followed f : now) {
            Optional<Followed> next = look(f);
            synchronized (this) {
                if (followed.get(f.job().toString()) == f) {
                    if (next.isPresent()) {
                        followed.put(f.job().toString(), next.get());
                    } else {
                        followed.remove(f.job().toString());
                    }
                }
            }
        }
    }

    /** The job's next record to keep following, or empty when it is done with (moved, gone, lapsed). */
    private Optional<Followed> look(Followed f) {
        long now = nanoClock.getAsLong();
        if (now - f.lapseAtNanos() > 0) {
            LOG.info("job {} was not requeued within {}: no longer followed", f.job(), LAPSE);
            return Optional.empty();
        }
        Job job;
        try {
            Optional<Job> found = slurm.job(f.job());
            if (found.isEmpty()) {
                return Optional.empty();
            }
            job = found.get();
        } catch (SlurmException e) {
            return Optional.of(f); // slurmctld away: look again next round
        }
        if (JobAuthority.owner(job) != f.owner()) {
            return Optional.empty(); // a reused id: another job
        }
        if (job.restarts() <= f.restartsBefore()) {
            // Not requeued yet (the supervisor asks just before it requeues), or it ended without one.
            return job.state().isFinished() ? Optional.empty() : Optional.of(f);
        }
        if (job.state() != JobState.PENDING) {
            // Still completing on its nodes: wait. Started, or ended: nothing to do.
            return job.state() == JobState.COMPLETING ? Optional.of(f) : Optional.empty();
        }
        if (!heldOnlyBySlurmsRequeueDelay(job)) {
            return Optional.empty(); // held, or waiting on something else: not ours to change
        }
        if (f.pendingSinceNanos() < 0) {
            return Optional.of(new Followed(f.job(), f.owner(), f.restartsBefore(), f.lapseAtNanos(), now));
        }
        if (now - f.pendingSinceNanos() < SETTLE.toNanos()) {
            return Optional.of(f);
        }
        String startWas = job.raw().getOrDefault("StartTime", "?");
        WriteResult moved = control.startNow(f.job());
        String outcome = moved.ok()
                ? "started at once instead of at " + startWas + " (Slurm's requeue delay)"
                : "its start could not be moved: " + moved.diagnosticTail().strip();
        LOG.info("requeued job {}: {}", f.job(), outcome);
        AuditLog log = audit;
        if (log != null) {
            log.recordRequeue(f.job().toString(), f.owner(), outcome);
        }
        return Optional.empty();
    }

    /** PENDING on BeginTime after a requeue, nothing completing, the start within Slurm's own hold. */
    static boolean heldOnlyBySlurmsRequeueDelay(Job job) {
        if (job.state() != JobState.PENDING || !"BeginTime".equals(job.reason())) {
            return false;
        }
        Optional<LocalDateTime> start = job.startTime();
        return start.isPresent()
                && !start.get().isAfter(LocalDateTime.now().plus(LONGEST_HOLD))
                && !"0".equals(job.raw().getOrDefault("Priority", "1"));
    }
}
