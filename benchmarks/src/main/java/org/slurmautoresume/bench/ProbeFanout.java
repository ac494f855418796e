package org.slurmautoresume.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slurmautoresume.agent.server.LivenessListener;
import org.slurmautoresume.agent.server.NodeVerdict;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.NodeParser;
import org.slurmautoresume.slurm.probe.LivenessProber;
import org.slurmautoresume.slurm.probe.NodeProber;
import org.slurmautoresume.slurm.probe.TcpNodeProber;
import org.slurmautoresume.supervisor.recovery.SlurmdWatch;
import org.slurmautoresume.supervisor.step.watch.StepWatch;

/**
 * The CPU the supervisor spends probing the nodes of a large step while nothing fails (target:
 * a 1,024-node step's probing under 5% of one core), and how long one probe round takes, so it
 * shows whether a round of N nodes fits in the one-second interval.
 *
 * <p>Modelled: each node's agent greeting on its liveness port, served by the agents' own
 * {@link LivenessListener} (one per node, the port chosen per node as {@link LivenessProber#port}
 * does for several nodes on one host: Port=6818+i gives the base port + i), all on loopback in a
 * separate JVM started from this one, so the greeters' CPU is not the supervisor's; and the
 * supervisor's own probing: the real {@link SlurmdWatch} with a real {@link LivenessProber} (a
 * {@link TcpNodeProber} behind it, as the supervisor builds it) at the production pace
 * ({@link StepWatch#PROBE_INTERVAL}, {@link StepWatch#GONE_PACE}, {@link StepWatch#PROBE_MISSES},
 * and Slurm read at {@link StepWatch#STATE_READS}: every 60 rounds, or every 300 where every agent greets).
 * The Slurm read itself is a stub that counts its calls and finds no node marked;
 * its cost to slurmctld is measured by controller-cost.sh.
 *
 * <p>Not modelled: a real network (loopback handshakes take microseconds; a real network's round
 * trips lengthen each sequential probe, not its CPU), name resolution (the nodes' addresses are
 * literal), and the rest of the supervisor (srun's output, the log rules), which runs beside the
 * watch in production.
 *
 * <p>Measured, per size, after a warm-up and over a window: the CPU time of the watch thread
 * and its probe lanes (ThreadMXBean), the whole supervisor JVM's CPU time (JIT and GC included) and the greeters' JVM
 * for comparison, each as a percentage of one core; the watch thread's time in user mode alone
 * too, the rest being the kernel's, whose loopback TCP charges the prober's thread for both ends
 * of each handshake and close, where a real network leaves the agent's end to the agent's node;
 * and the length of each probe round (first probe to the last one's answer): median, p99 and the
 * longest.
 *
 * <p>Usage: {@code java -cp benchmarks.jar org.slurmautoresume.bench.ProbeFanout [SIZES=64,256,1024]
 * [WINDOW_S=30] [WARMUP_S=5]} (benchmarks/scripts/probe-fanout.sh).
 */
public final class ProbeFanout {

    /** The agents' base liveness port here: below the ephemeral range, clear of DiagnosisFanout's. */
    private static final int LIVENESS_BASE = 25000;

    private static final String GREETERS = "--greeters";

    private ProbeFanout() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals(GREETERS)) {
            greeters(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            return;
        }
        int[] sizes = Arrays.stream((args.length > 0 ? args[0] : "64,256,1024").split(","))
                .mapToInt(Integer::parseInt)
                .toArray();
        long windowS = args.length > 1 ? Long.parseLong(args[1]) : 30;
        long warmupS = args.length > 2 ? Long.parseLong(args[2]) : 5;
        int most = Arrays.stream(sizes).max().orElseThrow();
        Process greeters = startGreeters(most);
        try {
            System.out.printf(
                    "interval %d ms, %d misses, gone pace %d ms; window %d s after %d s warm-up; greeters in pid %d%n",
                    StepWatch.PROBE_INTERVAL.toMillis(),
                    StepWatch.PROBE_MISSES,
                    StepWatch.GONE_PACE.toMillis(),
                    windowS,
                    warmupS,
                    greeters.pid());
            for (int size : sizes) {
                measure(size, windowS, warmupS, greeters);
            }
        } finally {
            greeters.getOutputStream().close(); // the greeters leave when their stdin ends
            if (!greeters.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                greeters.destroy();
            }
        }
    }

    /** One watch over {@code size} nodes: warm-up, then the measured window. */
    private static void measure(int size, long windowS, long warmupS, Process greeters) throws Exception {
        List<Node> nodes = new ArrayList<>();
        NodeParser parser = new NodeParser();
        for (int i = 1; i <= size; i++) {
            nodes.add(
                    parser.parse("NodeName=node" + i + " NodeAddr=127.0.0.1 Port=" + (6818 + i) + " State=ALLOCATED"));
        }
        LivenessProber prober = new LivenessProber(
                StepWatch.PROBE_INTERVAL, LIVENESS_BASE, 0, true, new TcpNodeProber(StepWatch.PROBE_INTERVAL));
        Rounds rounds = new Rounds(prober, nodes);
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger stateReads = new AtomicInteger();
        AtomicInteger ended = new AtomicInteger();
        SlurmdWatch watch =
                new SlurmdWatch(rounds, StepWatch.PROBE_INTERVAL, StepWatch.GONE_PACE, StepWatch.PROBE_MISSES);
        Thread watching = new Thread(
                () -> watch.watch(
                        nodes,
                        running::get,
                        suspects -> {
                            ended.incrementAndGet();
                            System.out.println("  the watch named suspects: " + suspects);
                        },
                        () -> {
                            stateReads.incrementAndGet();
                            return List.of();
                        },
                        StepWatch.STATE_READS,
                        marked -> ended.incrementAndGet()),
                "slurmd-watch");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        threads.setThreadCpuTimeEnabled(true);
        watching.start();
        Thread.sleep(warmupS * 1000);

        long threadCpu0 = probingCpu(threads, false);
        long threadUser0 = probingCpu(threads, true);
        long processCpu0 = processCpuNanos();
        long greetersCpu0 = cpuNanos(greeters.toHandle());
        long wall0 = System.nanoTime();
        int roundsBefore = rounds.count();
        long missesBefore = rounds.misses.get();
        Thread.sleep(windowS * 1000);
        long threadCpu = probingCpu(threads, false) - threadCpu0;
        long threadUser = probingCpu(threads, true) - threadUser0;
        long processCpu = processCpuNanos() - processCpu0;
        long greetersCpu = cpuNanos(greeters.toHandle()) - greetersCpu0;
        long wall = System.nanoTime() - wall0;
        long[] lengths = rounds.lengthsSince(roundsBefore);
        long misses = rounds.misses.get() - missesBefore;

        running.set(false);
        watching.interrupt();
        watching.join(10_000);
        prober.close(); // the next size's prober keeps connections of its own

        Arrays.sort(lengths);
        System.out.printf(
                "nodes=%d rounds=%d watch_thread_cpu=%.2f%% (user %.2f%%) process_cpu=%.2f%% greeters_cpu=%.2f%%"
                        + " cpu_per_probe_us=%.1f round_ms median=%.1f p99=%.1f max=%.1f"
                        + " state_reads=%d missed_probes=%d watch_ended=%d%n",
                size,
                lengths.length,
                100.0 * threadCpu / wall,
                100.0 * threadUser / wall,
                100.0 * processCpu / wall,
                100.0 * greetersCpu / wall,
                lengths.length == 0 ? 0.0 : threadCpu / 1000.0 / ((double) lengths.length * size),
                percentile(lengths, 50) / 1e6,
                percentile(lengths, 99) / 1e6,
                lengths.length == 0 ? 0.0 : lengths[lengths.length - 1] / 1e6,
                stateReads.get(),
                misses,
                ended.get());
    }

    /**
     * The CPU time of the threads that probe: the watch's own and its lanes' (the watch probes
     * up to {@code SlurmdWatch.LANES} nodes at once); user mode only, or all of it.
     */
    private static long probingCpu(ThreadMXBean threads, boolean userOnly) {
        long total = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null
                    && (info.getThreadName().equals("slurmd-watch")
                            || info.getThreadName().equals(SlurmdWatch.LANE_THREAD))) {
                long cpu = userOnly
                        ? threads.getThreadUserTime(info.getThreadId())
                        : threads.getThreadCpuTime(info.getThreadId());
                total += Math.max(0, cpu);
            }
        }
        return total;
    }

    /**
     * The prober the watch asks, timing each round from its start (the questions asked ahead of
     * it included) to the round's last answer, whichever lane gave it, and counting misses; two
     * clock reads and a counter a probe are all it adds.
     */
    private static final class Rounds implements NodeProber {
        private final NodeProber prober;
        private final int size;
        private final AtomicLong misses = new AtomicLong();
        private final AtomicInteger answered = new AtomicInteger();
        private final List<Long> lengths = new ArrayList<>();
        private volatile long started;

        Rounds(NodeProber prober, List<Node> nodes) {
            this.prober = prober;
            this.size = nodes.size();
        }

        @Override
        public void roundStarts(List<Node> nodes) {
            started = System.nanoTime();
            answered.set(0);
            prober.roundStarts(nodes);
        }

        @Override
        public Optional<String> unreachable(Node node) {
            Optional<String> out = prober.unreachable(node);
            if (out.isPresent()) {
                misses.incrementAndGet();
            }
            if (answered.incrementAndGet() == size) {
                long length = System.nanoTime() - started;
                synchronized (lengths) {
                    lengths.add(length);
                }
            }
            return out;
        }

        int count() {
            synchronized (lengths) {
                return lengths.size();
            }
        }

        long[] lengthsSince(int from) {
            synchronized (lengths) {
                return lengths.subList(from, lengths.size()).stream()
                        .mapToLong(Long::longValue)
                        .toArray();
            }
        }

        @Override
        public boolean reportsUnhealthy(Node node) {
            return prober.reportsUnhealthy(node);
        }

        @Override
        public boolean speaksForItsNode(Node node) {
            return prober.speaksForItsNode(node);
        }

        @Override
        public boolean refused(Node node) {
            return prober.refused(node);
        }

        @Override
        public boolean gone(Node node) {
            return prober.gone(node);
        }
    }

    /** Starts this class in a second JVM greeting as {@code count} nodes' agents; returns once they listen. */
    private static Process startGreeters(int count) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process process = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        ProbeFanout.class.getName(),
                        GREETERS,
                        Integer.toString(count),
                        Integer.toString(LIVENESS_BASE))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (!"ready".equals(line)) {
            process.destroy();
            throw new IllegalStateException("the greeters did not start: " + line);
        }
        return process;
    }

    /** The greeters' JVM: one real LivenessListener per node until stdin ends. */
    private static void greeters(int count, int base) throws IOException {
        List<LivenessListener> listeners = new ArrayList<>();
        InetAddress loopback = InetAddress.getLoopbackAddress();
        for (int i = 1; i <= count; i++) {
            String name = "node" + i;
            listeners.add(LivenessListener.start(
                    new InetSocketAddress(loopback, LivenessProber.port(base, 6818 + i)), name, new NodeVerdict()));
        }
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() >= 0) {
            // waits for the measuring JVM to close this process's stdin
        }
        long answered = 0;
        for (LivenessListener listener : listeners) {
            answered += listener.answered();
            listener.close();
        }
        System.err.println("greeters: " + answered + " probes answered");
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static long cpuNanos(ProcessHandle process) {
        return process.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    private static long percentile(long[] sorted, int percent) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
