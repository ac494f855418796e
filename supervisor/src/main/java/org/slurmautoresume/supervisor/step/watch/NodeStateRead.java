package org.slurmautoresume.supervisor.step.watch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.exec.DebugLogging;
import org.slurmautoresume.slurm.model.Node;

/**
 * Slurm's view of the watched step's nodes, asked for every few probe rounds: which of them
 * Slurm now has out of service for a fault. The read runs on a thread of its own and is waited
 * for a short while only: while slurmctld is away it waits for the controller, and the probes,
 * which need none, must go on meanwhile. A read that outlives its wait is picked up by the
 * next round instead of starting a second one.
 */
public final class NodeStateRead {

    /** How long a probe round waits for Slurm's view of the nodes (an scontrol takes tens of ms). */
    private static final Duration WAIT = Duration.ofSeconds(2);

    private final SlurmClient slurm;
    private final String nodeList;
    /** Each node's latest record, for the evidence handed on with a marked node. */
    private final Map<String, Node> lastRead = new ConcurrentHashMap<>();
    /** The read in flight, if any; the probe thread's alone. */
    private CompletableFuture<List<String>> inFlight;

    private volatile Thread reader;

    NodeStateRead(SlurmClient slurm, String nodeList) {
        this.slurm = slurm;
        this.nodeList = nodeList;
    }

    /** The nodes Slurm has out of service for a fault; none when it cannot be asked in time. Probe thread only. */
    List<String> markedOut() {
        CompletableFuture<List<String>> read = inFlight;
        if (read == null) {
            read = new CompletableFuture<>();
            CompletableFuture<List<String>> into = read;
            reader = StepWatch.daemon(() -> into.complete(read()), "node-state-read");
            inFlight = read;
        }
        try {
            List<String> out = read.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            inFlight = null;
            return out;
        } catch (TimeoutException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        } catch (ExecutionException e) {
            inFlight = null;
            return List.of();
        }
    }

    /** The latest records of these nodes, as the reads found them. */
    List<Node> lastRead(List<String> names) {
        return names.stream().map(lastRead::get).toList();
    }

    /** Ends a read still waiting for slurmctld: the attempt it was for has ended. */
    void stop() {
        Thread running = reader;
        if (running != null) {
            running.interrupt();
        }
    }

    private List<String> read() {
        try {
            List<String> out = new ArrayList<>();
            for (Node node : slurm.nodes(nodeList)) {
                lastRead.put(node.name(), node);
                if (outForAFault(node)) {
                    out.add(node.name());
                }
            }
            return out;
        } catch (RuntimeException e) {
            DebugLogging.debug(NodeStateRead.class, "cannot read the step's nodes: {}", e.getMessage());
            return List.of();
        }
    }

    /** "node2 MIXED+FAIL (Action:Reboot Xid 79 ...)" for each node, for the log and the timeline. */
    public static String describe(List<Node> nodes) {
        return nodes.stream()
                .map(n -> n.name() + " " + n.state().display()
                        + n.reason().map(r -> " (" + r.text() + ")").orElse(""))
                .collect(Collectors.joining("; "));
    }

    /**
     * Down (Slurm kills its jobs anyway), or failing/draining with the toolkit's Action reason.
     * An administrator's plain drain lets running work finish, so it does not end the step.
     */
    public static boolean outForAFault(Node node) {
        boolean action = node.reason()
                .map(r -> r.isAction(NodeMark.Action.REPLACE.word()) || r.isAction(NodeMark.Action.REBOOT.word()))
                .orElse(false);
        return node.state().isDown()
                || (action && (node.state().isFail() || node.state().isDrain()));
    }
}
