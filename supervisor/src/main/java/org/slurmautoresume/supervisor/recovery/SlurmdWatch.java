package org.slurmautoresume.supervisor.recovery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.probe.NodeProber;

/**
 * Fast detection: while a step runs, probes the slurmd of each of its nodes every interval and
 * reports the nodes that failed {@code threshold} probes in a row, once. A dead node is seen in
 * seconds instead of after slurmctld's SlurmdTimeout (300 s by default), which is what lets a
 * job submitted without --no-kill be repaired before Slurm kills it.
 *
 * <p>A node the prober finds {@linkplain NodeProber#gone gone} (its agent, which answered
 * before, and its slurmd both refuse connections: nothing of the node runs) is probed again
 * after {@code gonePace} instead of the interval, so its misses add up in a fraction of the
 * time; the threshold stays, and a node that merely times out or whose slurmd alone refuses (a
 * slurmd restart) keeps the interval's pace.
 *
 * <p>A round probes its nodes in up to {@link #LANES} lanes at once, node {@code i} in lane
 * {@code i % lanes}, each lane's nodes one after the other: a silent node holds its lane for the
 * probe's timeout, and nodes that go silent together (a leaf switch's, named one after the other)
 * fall into different lanes, so the round lasts one timeout rather than one per silent node, and
 * their misses add up at the interval's pace. The watch's own thread is the first lane.
 */
public final class SlurmdWatch {

    /**
     * The most probes of one round at once: eight nodes silent together still cost one timeout;
     * a step's worth of probe threads would cost memory and wakeups for nothing while all answer.
     */
    static final int LANES = 8;

    /** The name of a lane's thread (the first lane is the watch's own). */
    public static final String LANE_THREAD = "slurmd-probe-lane";

    /** How a round waits for the next; a test replaces it to see the pace. */
    @FunctionalInterface
    interface Pause {
        void sleep(long millis) throws InterruptedException;
    }

    private final NodeProber prober;
    private final Duration interval;
    private final Duration gonePace;
    private final int threshold;
    private final Pause pause;
    private final int lanes;

    public SlurmdWatch(NodeProber prober, Duration interval, int threshold) {
        this(prober, interval, interval, threshold);
    }

    public SlurmdWatch(NodeProber prober, Duration interval, Duration gonePace, int threshold) {
        this(prober, interval, gonePace, threshold, Thread::sleep, LANES);
    }

    SlurmdWatch(NodeProber prober, Duration interval, Duration gonePace, int threshold, Pause pause) {
        this(prober, interval, gonePace, threshold, pause, LANES);
    }

    SlurmdWatch(NodeProber prober, Duration interval, Duration gonePace, int threshold, Pause pause, int lanes) {
        if (lanes < 1) {
            throw new IllegalArgumentException("lanes must be at least 1: " + lanes);
        }
        this.lanes = lanes;
        this.prober = Objects.requireNonNull(prober);
        this.interval = Objects.requireNonNull(interval);
        this.gonePace = Objects.requireNonNull(gonePace);
        this.pause = Objects.requireNonNull(pause);
        if (threshold < 1) {
            throw new IllegalArgumentException("threshold must be at least 1: " + threshold);
        }
        this.threshold = threshold;
    }

    /**
     * Probes until {@code running} turns false, the thread is interrupted, or some nodes failed
     * {@code threshold} probes in a row; those are passed to {@code onSuspects} and watching ends.
     */
    public void watch(List<Node> nodes, BooleanSupplier running, Consumer<List<String>> onSuspects) {
        watch(nodes, running, onSuspects, List::of, new StateReads(1, 1), marked -> {});
    }

    /**
     * How often a watch reads Slurm's record of the nodes while nothing is wrong, in rounds:
     * {@code every} while some node's own agent does not answer for it, {@code everyWhereAgentsSpeak}
     * while every node's does ({@link NodeProber#speaksForItsNode}): such an agent says in its
     * answer when it marks its node, so the periodic read only catches marks made by others.
     */
    public record StateReads(int every, int everyWhereAgentsSpeak) {
        public StateReads {
            if (every < 1 || everyWhereAgentsSpeak < 1) {
                throw new IllegalArgumentException(
                        "reads must be at least 1 round apart: " + every + ", " + everyWhereAgentsSpeak);
            }
        }
    }

    /**
     * As above, and at the pace {@code reads} sets asks {@code markedNow} which nodes are out of
     * service already (marked by their own agent on a GPU fault, say, while their slurmd answers);
     * if any, they go to {@code onMarked} and watching ends. A node whose own answer says it is
     * unhealthy ({@link NodeProber#reportsUnhealthy}) has Slurm asked at once instead.
     */
    public void watch(
            List<Node> nodes,
            BooleanSupplier running,
            Consumer<List<String>> onSuspects,
            Supplier<List<String>> markedNow,
            StateReads reads,
            Consumer<List<String>> onMarked) {
        // At least the watch's own lane: a step whose node list came back empty is watched (for
        // nothing) until it ends, as before there were lanes.
        try (Lanes probes = new Lanes(Math.max(1, Math.min(lanes, nodes.size())))) {
            Map<String, Integer> misses = new HashMap<>();
            boolean agentsSpeak = false;
            int sinceRead = 0;
            while (running.getAsBoolean() && !Thread.currentThread().isInterrupted()) {
                long roundStart = System.nanoTime();
                sinceRead++;
                if (sinceRead >= (agentsSpeak ? reads.everyWhereAgentsSpeak() : reads.every())) {
                    sinceRead = 0;
                    if (handedOnMarked(markedNow, running, onMarked)) {
                        return;
                    }
                }
                List<String> suspects = new ArrayList<>();
                boolean readNow = false;
                boolean hurry = false;
                boolean allSpeak = true;
                prober.roundStarts(nodes);
                boolean[] unreachable;
                try {
                    unreachable = probes.probe(nodes);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < nodes.size(); i++) {
                    Node node = nodes.get(i);
                    int missed = unreachable[i] ? misses.getOrDefault(node.name(), 0) + 1 : 0;
                    misses.put(node.name(), missed);
                    if (missed >= threshold) {
                        suspects.add(node.name());
                    }
                    readNow |= missed == 0 && prober.reportsUnhealthy(node);
                    hurry |= missed > 0 && prober.gone(node);
                    allSpeak &= prober.speaksForItsNode(node);
                }
                agentsSpeak = allSpeak;
                if (!suspects.isEmpty() && running.getAsBoolean()) {
                    onSuspects.accept(suspects);
                    return;
                }
                // A node's own agent says it just marked the node: read Slurm now, not at the next periodic read.
                if (readNow && sinceRead != 0) {
                    sinceRead = 0;
                    if (handedOnMarked(markedNow, running, onMarked)) {
                        return;
                    }
                }
                try {
                    // A silent node's probe already took its timeout: the round, not each pause, lasts the interval.
                    long spent = (System.nanoTime() - roundStart) / 1_000_000;
                    pause.sleep(Math.max(0, (hurry ? gonePace : interval).toMillis() - spent));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** The lanes of one watch: the watch's own thread, and daemon threads for the others. */
    private final class Lanes implements AutoCloseable {
        private final int count;
        private final ExecutorService others;

        Lanes(int count) {
            this.count = count;
            this.others = count > 1 ? Executors.newFixedThreadPool(count - 1, Lanes::thread) : null;
        }

        private static Thread thread(Runnable work) {
            Thread thread = new Thread(work, LANE_THREAD);
            thread.setDaemon(true);
            return thread;
        }

        /**
         * One probe of each node, lane {@code k} probing nodes {@code k, k + count, ...} in turn,
         * lane 0 on this thread; whether each was unreachable, in the nodes' order. A probe's own
         * exception ends the watch, as it did with one lane.
         */
        boolean[] probe(List<Node> nodes) throws InterruptedException {
            boolean[] unreachable = new boolean[nodes.size()];
            List<Future<?>> aside = new ArrayList<>(count - 1);
            for (int lane = 1; lane < count; lane++) {
                int first = lane;
                aside.add(others.submit(() -> probeLane(nodes, first, unreachable)));
            }
            try {
                probeLane(nodes, 0, unreachable);
                for (Future<?> lane : aside) {
                    lane.get();
                }
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException runtime) {
                    throw runtime;
                }
                if (e.getCause() instanceof Error error) {
                    throw error;
                }
                throw new IllegalStateException(e.getCause());
            } finally {
                for (Future<?> lane : aside) {
                    lane.cancel(true); // only an interrupted round leaves any running
                }
            }
            return unreachable; // each slot written by one lane, read after every lane's get()
        }

        private void probeLane(List<Node> nodes, int first, boolean[] unreachable) {
            for (int i = first; i < nodes.size(); i += count) {
                unreachable[i] = prober.unreachable(nodes.get(i)).isPresent();
            }
        }

        @Override
        public void close() {
            if (others != null) {
                others.shutdownNow();
            }
        }
    }

    /** Reads which nodes are out of service now; true when some were, and were handed on. */
    private static boolean handedOnMarked(
            Supplier<List<String>> markedNow, BooleanSupplier running, Consumer<List<String>> onMarked) {
        List<String> marked = markedNow.get();
        if (!marked.isEmpty() && running.getAsBoolean()) {
            onMarked.accept(marked);
            return true;
        }
        return false;
    }
}
