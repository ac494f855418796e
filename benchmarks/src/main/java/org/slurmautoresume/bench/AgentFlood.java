package org.slurmautoresume.bench;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The two sides of the agent flood benchmark (fair under load), plain JDK so it runs
 * as any user against any agent build; {@code benchmarks/scripts/agent-flood.sh} starts the agent
 * as root and runs one side as the flooding user and the other as another user.
 *
 * <pre>
 * flood SOCKET CONNECTIONS REQUESTS_PER_S SECONDS
 *     holds CONNECTIONS idle connections (one the agent closes is opened again a second later:
 *     the user who keeps reconnecting) and sends REQUESTS_PER_S complete requests a second.
 * probe SOCKET COUNT INTERVAL_MS TIMEOUT_MS MAX_SECONDS
 *     sends up to COUNT requests one after another (stopping after MAX_SECONDS) and prints the
 *     latency of the answers as percentiles, with how many were refused as busy or got no answer
 *     in TIMEOUT_MS (closed unanswered, or too late: each counts as TIMEOUT_MS, a lower bound).
 * </pre>
 *
 * The request is one the agent refuses without asking Slurm (a node name it rejects), so the
 * figure is the agent's own queueing and not Slurm's; it goes through the whole path (peer
 * credentials, read, JSON, policy, audit, answer) like any other.
 */
public final class AgentFlood {

    static final String REQUEST = "{\"op\":\"diagnose\",\"jobId\":\"1\",\"nodes\":[\"bench;flood\"]}\n";

    private AgentFlood() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 5 && args[0].equals("flood")) {
            flood(Path.of(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
        } else if (args.length == 6 && args[0].equals("probe")) {
            probe(
                    Path.of(args[1]),
                    Integer.parseInt(args[2]),
                    Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]));
        } else {
            System.err.println("usage: AgentFlood flood SOCKET CONNECTIONS REQUESTS_PER_S SECONDS"
                    + " | probe SOCKET COUNT INTERVAL_MS TIMEOUT_MS MAX_SECONDS");
            System.exit(2);
        }
    }

    private static SocketChannel open(Path socket) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(socket));
        return channel;
    }

    private static void flood(Path socket, int connections, int perSecond, int seconds) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        AtomicLong sent = new AtomicLong();
        ExecutorService senders = Executors.newFixedThreadPool(4);
        Thread requests = new Thread(
                () -> {
                    long interval = TimeUnit.SECONDS.toNanos(1) / perSecond;
                    long next = System.nanoTime();
                    while (System.nanoTime() < end) {
                        senders.execute(() -> {
                            try (SocketChannel c = open(socket)) {
                                c.write(ByteBuffer.wrap(REQUEST.getBytes(StandardCharsets.UTF_8)));
                                c.read(ByteBuffer.allocate(4096));
                                sent.incrementAndGet();
                            } catch (IOException e) {
                                // refused or reset: the flood goes on
                            }
                        });
                        next += interval;
                        long wait = next - System.nanoTime();
                        if (wait > 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(wait);
                        }
                    }
                },
                "flood-requests");
        requests.start();

        long opened = 0;
        long closedByAgent = 0;
        // Reopen times of the connections the agent closed, soonest first.
        PriorityQueue<Long> reopen = new PriorityQueue<>();
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < connections; i++) {
                reopen.add(System.nanoTime());
            }
            ByteBuffer sink = ByteBuffer.allocate(4096);
            while (System.nanoTime() < end) {
                while (!reopen.isEmpty() && reopen.peek() <= System.nanoTime()) {
                    reopen.poll();
                    try {
                        SocketChannel c = open(socket);
                        c.configureBlocking(false);
                        c.register(selector, SelectionKey.OP_READ);
                        opened++;
                    } catch (IOException e) {
                        reopen.add(System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
                    }
                }
                selector.select(50);
                for (SelectionKey key : selector.selectedKeys()) {
                    SocketChannel c = (SocketChannel) key.channel();
                    int n;
                    try {
                        sink.clear();
                        n = c.read(sink);
                    } catch (IOException e) {
                        n = -1;
                    }
                    if (n != 0) {
                        // An answer (refusal or timeout) or the end: the agent let go of it.
                        key.cancel();
                        c.close();
                        closedByAgent++;
                        reopen.add(System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
                    }
                }
                selector.selectedKeys().clear();
            }
            for (SelectionKey key : selector.keys()) {
                key.channel().close();
            }
        }
        requests.join();
        senders.shutdown();
        senders.awaitTermination(10, TimeUnit.SECONDS);
        System.out.printf(
                Locale.ROOT,
                "flood: %d idle connections opened, %d closed by the agent, %d requests answered%n",
                opened,
                closedByAgent,
                sent.get());
    }

    private static void probe(Path socket, int count, int intervalMs, int timeoutMs, int maxSeconds) throws Exception {
        long stop = System.nanoTime() + TimeUnit.SECONDS.toNanos(maxSeconds);
        List<Long> millis = new ArrayList<>();
        int busy = 0;
        int closed = 0;
        int late = 0;
        for (int i = 0; i < count && System.nanoTime() < stop; i++) {
            long start = System.nanoTime();
            String answer = ask(socket, timeoutMs);
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            if (answer == null || answer.isEmpty()) {
                if (answer == null) {
                    late++;
                } else {
                    closed++;
                }
                millis.add((long) timeoutMs);
            } else {
                if (answer.contains("\"message\":\"busy:")) {
                    busy++;
                }
                millis.add(took);
            }
            TimeUnit.MILLISECONDS.sleep(intervalMs);
        }
        long[] sorted = millis.stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.printf(
                Locale.ROOT,
                "probe: %d requests, p50 %d ms, p99 %d ms, max %d ms, busy %d,"
                        + " closed unanswered %d, no answer in %d ms %d%n",
                sorted.length,
                percentile(sorted, 50),
                percentile(sorted, 99),
                sorted[sorted.length - 1],
                busy,
                closed,
                timeoutMs,
                late);
    }

    static long percentile(long[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
    }

    /** One request's answer line; empty when the agent closed without one, null when none came in time. */
    private static String ask(Path socket, int timeoutMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try (SocketChannel c = open(socket)) {
            try {
                c.write(ByteBuffer.wrap(REQUEST.getBytes(StandardCharsets.UTF_8)));
            } catch (IOException e) {
                // answered and closed before the write: the answer is still there
            }
            c.configureBlocking(false);
            ByteBuffer buffer = ByteBuffer.allocate(8192);
            try (Selector selector = Selector.open()) {
                c.register(selector, SelectionKey.OP_READ);
                while (true) {
                    int n = c.read(buffer);
                    if (n < 0 || (buffer.position() > 0 && buffer.get(buffer.position() - 1) == '\n')) {
                        return buffer.position() == 0
                                ? ""
                                : new String(Arrays.copyOf(buffer.array(), buffer.position()), StandardCharsets.UTF_8);
                    }
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) {
                        return null;
                    }
                    selector.select(left);
                    selector.selectedKeys().clear();
                }
            }
        } catch (IOException e) {
            return ""; // refused or reset: no answer
        }
    }
}
