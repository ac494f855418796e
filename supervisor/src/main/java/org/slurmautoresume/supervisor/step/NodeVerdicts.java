package org.slurmautoresume.supervisor.step;

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

/**
 * Diagnose before deciding: an attempt that failed on nodes Slurm calls healthy may still have
 * failed because of a node. A GPU fault kills the task at once, while the node's agent needs a
 * few hundred milliseconds to see the Xid and mark the node; when every rank dies together the
 * attempt ends before the mark. So before an application failure is settled, each step node's
 * own agent is asked, in parallel, for up to {@link #WITHIN}: one that says its node is
 * unhealthy has marked it, and Slurm's record of that mark turns the failure into a node fault.
 * Nodes without an agent are not asked about; without any, nothing is waited for.
 */
final class NodeVerdicts {

    /** How long an application failure waits for a node's agent to say it marked its node. */
    static final Duration WITHIN = Duration.ofSeconds(2);
    private static final Duration EVERY = Duration.ofMillis(250);

    private NodeVerdicts() {
    }

    /** The step's nodes whose agent says they are unhealthy and that Slurm has out for a fault; empty if none. */
    static List<Node> unhealthy(NodeProber prober, List<Node> nodes, SlurmClient slurm) throws InterruptedException {
        if (!(prober instanceof LivenessProber) || nodes.isEmpty()) {
            return List.of();
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(nodes.size(), 64), task -> {
            Thread thread = new Thread(task, "node-verdicts");
            thread.setDaemon(true);
            return thread;
        });
        try {
            long deadline = System.nanoTime() + WITHIN.toNanos();
            boolean anyAgent = false;
            do {
                List<Future<Boolean>> asked = new ArrayList<>();
                for (Node node : nodes) {
                    asked.add(pool.submit(() -> prober.unreachable(node).isEmpty() && prober.reportsUnhealthy(node)));
                }
                List<String> saying = new ArrayList<>();
                for (int i = 0; i < nodes.size(); i++) {
                    if (result(asked.get(i))) {
                        saying.add(nodes.get(i).name());
                    }
                    anyAgent |= ((LivenessProber) prober).hasAgent(nodes.get(i));
                }
                if (!saying.isEmpty()) {
                    List<Node> out = slurm.nodes(Hostlist.compress(saying)).stream().filter(NodeStateRead::outForAFault)
                            .toList();
                    if (!out.isEmpty()) {
                        return out;
                    }
                }
                if (!anyAgent) {
                    return List.of();
                }
                Thread.sleep(EVERY.toMillis());
            } while (System.nanoTime() < deadline);
            return List.of();
        } catch (RuntimeException e) {
            return List.of(); // Slurm or a node could not be asked: the failure stays what it looked like
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(1, TimeUnit.SECONDS);
        }
    }

    private static boolean result(Future<Boolean> answer) throws InterruptedException {
        try {
            return answer.get();
        } catch (java.util.concurrent.ExecutionException e) {
            return false;
        }
    }

    /** The reason an application failure turned node fault gives. */
    static String reason(List<Node> nodes) {
        return "the agent of " + Hostlist.compress(nodes.stream().map(Node::name).toList())
                + " marked it after the attempt failed: " + NodeStateRead.describe(nodes);
    }
}
