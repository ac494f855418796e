package org.slurmautoresume.supervisor.step.diagnosis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.probe.LivenessProber;
import org.slurmautoresume.slurm.probe.NodeProber;
import org.slurmautoresume.supervisor.step.watch.NodeStateRead;

/**
 * Diagnose before deciding: an attempt that failed on nodes Slurm calls healthy may still have
 * failed because of a node. A GPU fault kills the task at once, while the node's agent needs a
 * few hundred milliseconds to see the Xid and mark the node; when every rank dies together the
 * attempt ends before the mark. And a fault no Xid announces (an ECC error, an NVLink down) is
 * found only by the agent's GPU checks, which run at an interval. So before an application
 * failure is settled, each step node's own agent is asked, in parallel: on its fresh-check port
 * for a round of its checks now (where it has one), and on its liveness port, every
 * {@link #EVERY}, for what it holds. One that says its node is unhealthy has marked it, and
 * Slurm's record of that mark turns the failure into a node fault. It asks for {@link #WITHIN},
 * and on up to {@link #WITHIN_FRESH} while fresh checks have not all answered; nodes without an
 * agent are not asked about, and without any, nothing is waited for.
 */
public final class NodeVerdicts {

    /** How long an application failure waits for a node's agent to say it marked its node. */
    static final Duration WITHIN = Duration.ofSeconds(2);
    /** The same while fresh checks are asked for: a round (2.5 s at most on the agent's side) and the mark. */
    static final Duration WITHIN_FRESH = Duration.ofSeconds(3);

    private static final Duration EVERY = Duration.ofMillis(250);
    /** The most nodes asked at once on their liveness ports; more wait for a thread. */
    private static final int THREADS = 64;
    /** The most fresh checks waited for at once: each thread mostly sleeps in a socket read. */
    private static final int FRESH_THREADS = 256;

    private NodeVerdicts() {}

    /** The step's nodes whose agent says they are unhealthy and that Slurm has out for a fault; empty if none. */
    public static List<Node> unhealthy(NodeProber prober, List<Node> nodes, SlurmClient slurm)
            throws InterruptedException {
        if (!(prober instanceof LivenessProber liveness) || nodes.isEmpty()) {
            return List.of();
        }
        ExecutorService pool = pool(Math.min(nodes.size(), THREADS));
        // A pool of their own: each fresh ask waits for its node's round (seconds), and must not hold
        // up the liveness asks, nor wait in line behind other fresh asks.
        ExecutorService freshPool = liveness.asksFreshChecks() ? pool(Math.min(nodes.size(), FRESH_THREADS)) : null;
        try {
            long started = System.nanoTime();
            List<Future<Boolean>> fresh = new ArrayList<>();
            if (liveness.asksFreshChecks()) {
                for (Node node : nodes) {
                    fresh.add(freshPool.submit(
                            () -> liveness.freshlyUnhealthy(node, WITHIN_FRESH).orElse(false)));
                }
            }
            boolean anyAgent = false;
            boolean freshPending;
            do {
                List<Future<Boolean>> asked = new ArrayList<>();
                for (Node node : nodes) {
                    asked.add(pool.submit(() -> prober.unreachable(node).isEmpty() && prober.reportsUnhealthy(node)));
                }
                List<String> saying = new ArrayList<>();
                for (int i = 0; i < nodes.size(); i++) {
                    boolean freshly = !fresh.isEmpty() && fresh.get(i).isDone() && result(fresh.get(i));
                    if (result(asked.get(i)) || freshly) {
                        saying.add(nodes.get(i).name());
                    }
                    anyAgent |= liveness.hasAgent(nodes.get(i));
                }
                if (!saying.isEmpty()) {
                    List<Node> out = slurm.nodes(Hostlist.compress(saying)).stream()
                            .filter(NodeStateRead::outForAFault)
                            .toList();
                    if (!out.isEmpty()) {
                        return out;
                    }
                }
                freshPending = !fresh.stream().allMatch(Future::isDone);
                if (!anyAgent && !freshPending) {
                    return List.of();
                }
                Thread.sleep(EVERY.toMillis());
            } while (waitsOn(started, freshPending));
            return List.of();
        } catch (RuntimeException e) {
            return List.of(); // Slurm or a node could not be asked: the failure stays what it looked like
        } finally {
            pool.shutdownNow();
            if (freshPool != null) {
                freshPool.shutdownNow();
            }
            pool.awaitTermination(1, TimeUnit.SECONDS);
        }
    }

    /**
     * Whether to ask again: for {@link #WITHIN} in any case (an Xid reaches the agent a little
     * after the ranks die), and up to {@link #WITHIN_FRESH} while fresh checks have not all
     * answered. Where they all said ok, a failure on healthy nodes costs no more than before.
     */
    private static boolean waitsOn(long started, boolean freshPending) {
        long waited = System.nanoTime() - started;
        return waited < WITHIN.toNanos() || (freshPending && waited < WITHIN_FRESH.toNanos());
    }

    private static ExecutorService pool(int size) {
        return Executors.newFixedThreadPool(size, task -> {
            Thread thread = new Thread(task, "node-verdicts");
            thread.setDaemon(true);
            return thread;
        });
    }

    private static boolean result(Future<Boolean> answer) throws InterruptedException {
        try {
            return answer.get();
        } catch (java.util.concurrent.ExecutionException e) {
            return false;
        }
    }

    /** The reason an application failure turned node fault gives. */
    public static String reason(List<Node> nodes) {
        return "the agent of "
                + Hostlist.compress(nodes.stream().map(Node::name).toList()) + " marked it after the attempt failed: "
                + NodeStateRead.describe(nodes);
    }
}
