package org.slurmautoresume.nodeops.xid;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows this node's kernel log and reports each kind of Xid (code and GPU) the first time it
 * appears (once among the records already there, once among new ones), classified by {@link XidCatalog}. Only records the kernel wrote count, only
 * well-formed driver messages ({@link XidParser}), and only for an address that {@code isGpu}
 * accepts (an NVIDIA device present on this node): each is a guard against text a user put in
 * the log. Records already in the log when the watch began are reported as such, so the caller can tell an Xid
 * that just happened from one a past boot-time run already dealt with.
 */
public final class XidWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(XidWatch.class);

    /** One kind of Xid seen: its first event, its class, and whether it appeared after the watch began. */
    public record Sighting(XidEvent event, XidCatalog.XidClass xidClass, boolean afterStart, long sequence) {}

    /** Told of each first sighting, on the watch's thread. */
    @FunctionalInterface
    public interface Listener {
        void seen(Sighting sighting);
    }

    private final KernelRecordSource source;
    private final Predicate<String> isGpu;
    private final Listener listener;
    private final AtomicLong lastSequence = new AtomicLong(-1);
    private final Map<String, Integer> counts = new HashMap<>();
    private final Set<String> reportedBefore = new HashSet<>();
    private final Set<String> reportedAfterStart = new HashSet<>();
    private final List<Sighting> sightings = new CopyOnWriteArrayList<>();
    private final List<String> ignored = new CopyOnWriteArrayList<>();
    private volatile Thread thread;
    private volatile Optional<String> stoppedBecause = Optional.empty();

    public XidWatch(KernelRecordSource source, Predicate<String> isGpu, Listener listener) {
        this.source = Objects.requireNonNull(source);
        this.isGpu = Objects.requireNonNull(isGpu);
        this.listener = Objects.requireNonNull(listener);
    }

    public synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException("already started");
        }
        thread = new Thread(this::run, "xid-watch");
        thread.setDaemon(true);
        thread.start();
    }

    /** The sequence number of the last kernel record read; -1 before the first. */
    public long lastSequence() {
        return lastSequence.get();
    }

    public List<Sighting> sightings() {
        return List.copyOf(sightings);
    }

    /** Why the watch stopped reading, if it did (the source failed); empty while it runs. */
    public Optional<String> stoppedBecause() {
        return stoppedBecause;
    }

    private void run() {
        try {
            for (String old : source.backlog()) {
                KernelRecord.parse(old).ifPresent(record -> accept(record, false));
            }
            Optional<String> text;
            while ((text = source.next()).isPresent()) {
                KernelRecord.parse(text.get()).ifPresent(record -> accept(record, true));
            }
        } catch (IOException | RuntimeException e) {
            if (thread != null) {
                stoppedBecause = Optional.of(String.valueOf(e.getMessage()));
                LOG.error("the Xid watch stopped reading {}: {}", source.describe(), e.toString());
            }
        }
    }

    /** One record, on the watch's thread (public for the tests of the decision alone). */
    void accept(KernelRecord record, boolean afterStart) {
        if (!record.fromKernel()) {
            return;
        }
        lastSequence.set(record.sequence());
        Optional<XidEvent> parsed = XidParser.parseMessage(record.message());
        if (parsed.isEmpty()) {
            return;
        }
        XidEvent event = parsed.get();
        if (!isGpu.test(event.pciAddress())) {
            if (ignored.size() < 100 && !ignored.contains(event.pciAddress())) {
                ignored.add(event.pciAddress());
                LOG.warn("ignored an Xid report for {}: no NVIDIA GPU at that address on this node", event.device());
            }
            return;
        }
        String key = event.code() + "@" + event.device();
        synchronized (this) {
            counts.merge(key, 1, Integer::sum);
            // Once before the watch began and once after: an Xid an earlier boot-time run dealt with
            // must not hide the same Xid coming back (the GPU reset by hand, the node resumed).
            if (!(afterStart ? reportedAfterStart : reportedBefore).add(key)) {
                return;
            }
        }
        Sighting sighting = new Sighting(event, XidCatalog.classify(event), afterStart, record.sequence());
        sightings.add(sighting);
        listener.seen(sighting);
    }

    /** How many times this kind of Xid was seen. */
    public synchronized int count(XidEvent event) {
        return counts.getOrDefault(event.code() + "@" + event.device(), 0);
    }

    @Override
    public void close() {
        Thread running = thread;
        thread = null;
        try {
            source.close();
        } catch (IOException e) {
            // closing is how the reader is stopped; nothing is lost
        }
        if (running != null) {
            running.interrupt();
        }
    }
}
