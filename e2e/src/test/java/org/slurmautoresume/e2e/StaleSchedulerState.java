package org.slurmautoresume.e2e;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.Node;

/**
 * What an administrator of a Slurm 22.05 cluster does when a job pends for "Resources" on nodes
 * that are all idle: {@code scontrol reconfigure}. After a job whose allocation was resized (every
 * in-job-spare recovery, every test of one), slurmctld 22.05 holds the job's nodes "busy" for the
 * scheduler until it next hears from them at a node ping, up to two ping intervals (SlurmdTimeout/3
 * each); a reconfigure makes every slurmd register at once, which frees them the same way
 * (docs/slurm-behaviour.md, "the wait ends at the next node ping"). In one CI run the next jobs
 * waited 121-187 s each, twelve minutes of the suite. Watching a submitted job, this does what that
 * administrator would once the job has pended 10 s on idle nodes, and says so. It never touches a
 * job whose nodes are in use, nor any other release. The toolkit itself never reconfigures.
 */
final class StaleSchedulerState {

    private static final Duration PATIENCE = Duration.ofSeconds(10);
    private static final Duration WATCH_FOR = Duration.ofSeconds(300);
    private static final Duration EVERY = Duration.ofSeconds(2);
    private static final Object RECONFIGURED = new Object();
    private static long lastReconfigure;

    private StaleSchedulerState() {}

    /** Watches {@code jobId} on a thread of its own while it pends (at most five minutes). */
    static void watch(LocalCluster cluster, String jobId) {
        if (!"22.05".equals(cluster.release())) {
            return;
        }
        Thread thread = new Thread(() -> watchUntilStarted(cluster, jobId), "stale-sched-" + jobId);
        thread.setDaemon(true);
        thread.start();
    }

    private static void watchUntilStarted(LocalCluster cluster, String jobId) {
        long start = System.nanoTime();
        long idleSince = 0;
        try {
            while (System.nanoTime() - start < WATCH_FOR.toNanos()) {
                Thread.sleep(EVERY.toMillis());
                Optional<Job> job = cluster.slurm().job(jobId);
                if (job.isEmpty() || job.get().state() != JobState.PENDING) {
                    return;
                }
                if (!onIdleNodes(cluster, job.get())) {
                    idleSince = 0;
                } else if (idleSince == 0) {
                    idleSince = System.nanoTime();
                } else if (System.nanoTime() - idleSince >= PATIENCE.toNanos() && reconfigure(cluster)) {
                    System.out.printf(
                            "note: job %s pended %d s for %s on idle nodes %s (Slurm 22.05 holds a resized"
                                    + " job's nodes until a node ping): scontrol reconfigure%n",
                            jobId,
                            Duration.ofNanos(System.nanoTime() - start).toSeconds(),
                            job.get().raw().getOrDefault("Reason", "?"),
                            job.get().raw().get("ReqNodeList"));
                    idleSince = 0;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // slurmctld away (an outage test), or the job gone: nothing to do for it
        }
    }

    /** Pending for resources although every node it asked for by name is idle and allocates nothing. */
    private static boolean onIdleNodes(LocalCluster cluster, Job job) {
        String reason = job.raw().getOrDefault("Reason", "");
        String wanted = job.raw().getOrDefault("ReqNodeList", "(null)");
        if (!(reason.equals("Resources") || reason.startsWith("Nodes_required")) || wanted.equals("(null)")) {
            return false;
        }
        List<Node> nodes = cluster.slurm().nodes(wanted);
        // isSchedulable lets PLANNED pass: the backfill's mark for the very job that waits.
        return nodes.size() == Hostlist.expand(wanted).size()
                && nodes.stream()
                        .allMatch(n -> n.state().base().equals("IDLE")
                                && n.state().isSchedulable()
                                && "0".equals(n.raw().getOrDefault("CPUAlloc", "")));
    }

    /** At most one reconfigure in 30 s, whoever asks. */
    private static boolean reconfigure(LocalCluster cluster) {
        synchronized (RECONFIGURED) {
            if (System.nanoTime() - lastReconfigure < Duration.ofSeconds(30).toNanos() && lastReconfigure != 0) {
                return false;
            }
            lastReconfigure = System.nanoTime();
        }
        return cluster.run(List.of("scontrol", "reconfigure")).succeeded();
    }
}
