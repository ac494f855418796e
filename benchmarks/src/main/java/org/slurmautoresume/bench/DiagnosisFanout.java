package org.slurmautoresume.bench;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slurmautoresume.agent.server.LivenessListener;
import org.slurmautoresume.agent.server.NodeVerdict;
import org.slurmautoresume.slurm.client.OutputFormat;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.NodeParser;
import org.slurmautoresume.slurm.probe.LivenessProber;
import org.slurmautoresume.supervisor.step.diagnosis.NodeVerdicts;

/**
 * The bound on how long the supervisor's diagnosis of a failed attempt takes over N
 * step nodes (default 64) when each node's agent runs a round of its GPU checks on request.
 * Every node gets a real liveness and fresh-check listener on loopback (the agents' own
 * classes), whose round takes ROUND_MS (default 1000, a real nvidia-smi and dcgmi health on
 * eight GPUs take about that); one node's round finds a fault, waits the agent's 0.5 s
 * confirmation, runs again and marks the node, whose Slurm record then reads DOWN. The
 * supervisor's real {@code NodeVerdicts} asks them all; printed: how long until it names the
 * faulty node, and, in a second run where every node is sound, until it settles that none is.
 * In one JVM on one host the N listeners share its CPUs, which a real cluster does not.
 *
 * <p>Usage: {@code java -cp benchmarks.jar org.slurmautoresume.bench.DiagnosisFanout [N] [ROUND_MS] [RUNS]}
 * (benchmarks/scripts/diagnosis-fanout.sh).
 */
public final class DiagnosisFanout {

    private static final int LIVENESS_BASE = 21000;
    private static final int CHECK_BASE = 23000;
    private static final long CONFIRM_MS = 500;

    private DiagnosisFanout() {}

    public static void main(String[] args) throws Exception {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        long roundMs = args.length > 1 ? Long.parseLong(args[1]) : 1000;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        long[] faulty = new long[runs];
        long[] sound = new long[runs];
        for (int run = 0; run < runs; run++) {
            faulty[run] = once(nodes, roundMs, true);
            sound[run] = once(nodes, roundMs, false);
            System.out.printf(
                    "run %d: nodes=%d round_ms=%d faulty_node_named_ms=%d all_sound_settled_ms=%d%n",
                    run + 1, nodes, roundMs, faulty[run], sound[run]);
        }
        System.out.printf(
                "median over %d runs: faulty node named in %d ms, all sound settled in %d ms (bound 3000)%n",
                runs, median(faulty), median(sound));
    }

    /** One diagnosis over {@code count} nodes; returns its milliseconds. */
    private static long once(int count, long roundMs, boolean withFault) throws Exception {
        Set<String> down = ConcurrentHashMap.newKeySet();
        String faultyNode = "node" + count;
        List<LivenessListener> listeners = new ArrayList<>();
        List<Node> nodes = new ArrayList<>();
        try {
            for (int i = 1; i <= count; i++) {
                String name = "node" + i;
                NodeVerdict verdict = new NodeVerdict();
                boolean isFaulty = withFault && name.equals(faultyNode);
                InetAddress loopback = InetAddress.getLoopbackAddress();
                listeners.add(
                        LivenessListener.start(new InetSocketAddress(loopback, LIVENESS_BASE + i), name, verdict));
                listeners.add(LivenessListener.startFresh(
                        new InetSocketAddress(loopback, CHECK_BASE + i),
                        name,
                        verdict,
                        () -> CompletableFuture.runAsync(() -> {
                            sleep(roundMs);
                            if (isFaulty) { // found, confirmed after the agent's short wait, marked
                                sleep(CONFIRM_MS);
                                sleep(roundMs);
                                down.add(name);
                                verdict.markedUnhealthy();
                            }
                        })));
                nodes.add(new NodeParser()
                        .parse("NodeName=" + name + " NodeAddr=127.0.0.1 Port=" + (6818 + i) + " State=ALLOCATED"));
            }
            SlurmClient slurm = new SlurmClient(
                    request -> {
                        List<String> argv = request.argv();
                        StringBuilder out = new StringBuilder();
                        for (String name : Hostlist.expand(argv.get(argv.size() - 1))) {
                            out.append("NodeName=")
                                    .append(name)
                                    .append(" NodeAddr=127.0.0.1 State=")
                                    .append(down.contains(name) ? "DOWN" : "ALLOCATED")
                                    .append('\n');
                        }
                        return new CommandResult(request, 0, out.toString(), "", false, Duration.ZERO);
                    },
                    OutputFormat.TEXT);
            LivenessProber prober = new LivenessProber(
                    Duration.ofSeconds(1),
                    LIVENESS_BASE,
                    CHECK_BASE,
                    true,
                    node -> java.util.Optional.of("no slurmd here"));
            long started = System.nanoTime();
            List<Node> out = NodeVerdicts.unhealthy(prober, nodes, slurm);
            long ms = (System.nanoTime() - started) / 1_000_000;
            List<String> named = out.stream().map(Node::name).toList();
            if (!named.equals(withFault ? List.of(faultyNode) : List.of())) {
                throw new IllegalStateException("the diagnosis named " + named);
            }
            return ms;
        } finally {
            for (LivenessListener listener : listeners) {
                listener.close();
            }
        }
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
