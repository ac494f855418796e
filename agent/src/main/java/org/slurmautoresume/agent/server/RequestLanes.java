package org.slurmautoresume.agent.server;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.protocol.AgentJson;
import org.slurmautoresume.agent.protocol.AgentRequest;
import org.slurmautoresume.agent.protocol.LineChannel;
import org.slurmautoresume.slurm.model.Caller;

/**
 * Where read requests wait to be acted on: one lane per kind of request, each with its own few
 * workers and its own fair queue per uid. Every request of a kind runs scontrol (each call with
 * its own timeout, 30 s), and one scontrol that hangs (a controller restarting, a node whose
 * {@code show node} never returns) then holds the workers of its lane only: a supervisor's mark
 * is not stuck behind diagnoses, and a metrics report behind either. The workers that read
 * requests off the socket ({@link AgentServer}) hand each line over and are free again at once.
 *
 * <p>A request that waited in its lane longer than {@link #MAX_WAIT} is answered "busy" without
 * being acted on: its client (60 s deadline) is about to give up, and a supervisor riding out an
 * outage sends it again; acting on it late could change a node for a step that has moved on.
 */
final class RequestLanes implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(RequestLanes.class);
    static final Duration MAX_WAIT = Duration.ofSeconds(30);
    private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(5);
    private static final int ADMITTED_PER_UID = 16;

    /** The kinds of request, by what a hang in one must not stop. */
    enum Lane {
        /** mark, resume, replace, reboot: what recovery waits on. */
        WRITES(4, 2),
        /** diagnose, and watch (the job's node registration): reads of Slurm and probes of nodes. */
        READS(3, 2),
        /** metrics reports, and requests that cannot be read (answered with a refusal). */
        REPORTS(2, 1);

        final int workers;
        final int runningPerUid;

        Lane(int workers, int runningPerUid) {
            this.workers = workers;
            this.runningPerUid = runningPerUid;
        }

        static Lane of(String line) {
            AgentRequest.Op op;
            try {
                op = AgentRequest.fromJson(AgentJson.readTree(line)).op();
            } catch (RuntimeException e) {
                return REPORTS; // refused at once by the service, no Slurm call
            }
            return switch (op) {
                case MARK, RESUME, REPLACE, REBOOT -> WRITES;
                case DIAGNOSE, WATCH, EXPEDITE -> READS; // expedite reads the job; its write comes later
                case REPORT -> REPORTS;
            };
        }
    }

    private record Work(SocketChannel channel, Caller caller, String line, long admittedNanos) {}

    private final AgentService service;
    private final Duration maxWait;
    private final Map<Lane, FairQueue<Long, Work>> queues = new EnumMap<>(Lane.class);
    private final List<Thread> workers = new ArrayList<>();

    RequestLanes(AgentService service) {
        this(service, MAX_WAIT);
    }

    RequestLanes(AgentService service, Duration maxWait) {
        this.service = service;
        this.maxWait = maxWait;
        for (Lane lane : Lane.values()) {
            FairQueue<Long, Work> queue = new FairQueue<>(ADMITTED_PER_UID, lane.runningPerUid);
            queues.put(lane, queue);
            for (int i = 1; i <= lane.workers; i++) {
                Thread worker = new Thread(
                        () -> queue.serve(this::answer), "agent-" + lane.name().toLowerCase() + "-" + i);
                worker.setDaemon(true);
                worker.start();
                workers.add(worker);
            }
        }
    }

    /**
     * Queues the request in its lane; the lane answers and closes the connection. False when the
     * caller already has its share of that lane waiting: the connection is still the caller's.
     */
    boolean offer(SocketChannel channel, Caller caller, String line) {
        return queues.get(Lane.of(line)).offer(caller.uid(), new Work(channel, caller, line, System.nanoTime()));
    }

    /** The answer for a request its lane cannot take now (a supervisor tries it again later). */
    String busy(Caller caller, String line) {
        Lane lane = Lane.of(line);
        return service.refuse(
                caller,
                truncated(line),
                AgentClient.BUSY + caller.name() + " already has " + ADMITTED_PER_UID + " "
                        + lane.name().toLowerCase() + " requests waiting in the agent; try again later");
    }

    private void answer(Work work) {
        try (SocketChannel client = work.channel()) {
            long waited = System.nanoTime() - work.admittedNanos();
            String response = waited > maxWait.toNanos()
                    ? service.refuse(
                            work.caller(),
                            truncated(work.line()),
                            AgentClient.BUSY + "waited "
                                    + TimeUnit.NANOSECONDS.toSeconds(waited) + " s in the agent's "
                                    + Lane.of(work.line()).name().toLowerCase()
                                    + " queue (a Slurm command there is slow); not acted on, try again")
                    : service.handle(work.caller(), work.line());
            LineChannel.writeLine(client, response, System.nanoTime() + WRITE_TIMEOUT.toNanos());
        } catch (IOException e) {
            LOG.debug("a client left before its answer: {}", e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("internal error answering a client", e);
        }
    }

    private static String truncated(String line) {
        return line.length() <= 512 ? line : line.substring(0, 512) + "...";
    }

    /**
     * Stops taking work: what waits is closed unanswered (its client tries again, or fails), what
     * runs may finish within {@code grace} (a mark half done is worse than a late exit).
     */
    void close(Duration grace) {
        for (FairQueue<Long, Work> queue : queues.values()) {
            queue.close().forEach(work -> closeQuietly(work.channel()));
        }
        long deadline = System.nanoTime() + grace.toNanos();
        try {
            for (Thread worker : workers) {
                worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // nothing more to do
        }
    }
}
