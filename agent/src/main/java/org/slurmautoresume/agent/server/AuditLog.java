package org.slurmautoresume.agent.server;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.agent.protocol.AgentJson;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.agent.protocol.NodeDecision;
import org.slurmautoresume.slurm.files.OwnedFiles;
import org.slurmautoresume.slurm.model.Caller;

/**
 * One JSON line per request the agent answered: when, who (from the peer credentials), what was
 * asked, what was decided and why. Appended and flushed line by line, so a crash loses nothing
 * already decided. Caller text only ever appears as a JSON string value, escaped by the writer,
 * so a request cannot forge or split lines. A request that would change Slurm's state is recorded
 * before it is acted on ({@link #recordIntent}); when that line cannot be written the agent
 * refuses to act. The file is capped: past {@link #DEFAULT_MAX_BYTES} it becomes {@code FILE.1}
 * (the older ones {@code .2} .. {@code .}{@value #KEEP}, the oldest dropped), so a flood of
 * requests cannot fill the node's disk. An operator's logrotate may move the file away as well:
 * {@link #reopen} (the agent's SIGHUP and SIGUSR2) then starts a new one at the same path.
 *
 * <p>Within the cap, no one user can push everyone else's history out ({@link AuditShares}): the
 * lines of a request that changes Slurm (its intent and its outcome) and the agent's own lines
 * (sweeps, Xids, its checks) are always written, but each uid makes only so many such requests a
 * minute; the lines a user can cause at will (refusals, answers to requests that change nothing)
 * are written within that uid's share, and those left out are counted in a line of their own,
 * {@code {"time", "uid", "user", "refusalsLeftOut", "answersLeftOut", "since"}}, written before
 * that uid's next line, or a minute after the last one left out, or when the log closes.
 */
public final class AuditLog implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(AuditLog.class);

    /** 64 MiB per file, five files: weeks of a busy node's requests, a bounded share of its disk. */
    public static final long DEFAULT_MAX_BYTES = 64L << 20;

    static final int KEEP = 4;

    private final Path file;
    private final Clock clock;
    private final long maxBytes;
    private final int uid;
    private final AuditShares shares = new AuditShares();
    private OutputStream out;
    private long size;

    public AuditLog(Path file) throws IOException {
        this(file, Clock.systemUTC(), DEFAULT_MAX_BYTES);
    }

    AuditLog(Path file, Clock clock, long maxBytes) throws IOException {
        this.file = file;
        this.clock = clock;
        this.maxBytes = maxBytes;
        Path dir = file.toAbsolutePath().getParent();
        // The agent is root: a folder another user can write could hold a planted link to any file.
        this.uid = OwnedFiles.currentUid();
        if (dir != null) {
            Files.createDirectories(dir);
            OwnedFiles.requireTrustedDirectory(dir, uid);
        }
        open();
    }

    private void open() throws IOException {
        var channel = OwnedFiles.open(
                file,
                uid,
                PosixFilePermissions.fromString("rw-r-----"),
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND,
                StandardOpenOption.WRITE);
        size = channel.size();
        out = Channels.newOutputStream(channel);
    }

    /** FILE becomes FILE.1, FILE.1 becomes FILE.2, ...; the oldest is dropped; a new FILE is opened. */
    private void rotate() throws IOException {
        out.close();
        Files.deleteIfExists(rotated(KEEP));
        for (int i = KEEP - 1; i >= 1; i--) {
            if (Files.exists(rotated(i), LinkOption.NOFOLLOW_LINKS)) {
                Files.move(rotated(i), rotated(i + 1), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Files.move(file, rotated(1), StandardCopyOption.REPLACE_EXISTING);
        open();
    }

    /**
     * Closes the file and opens the path again, as Slurm's daemons reopen their logs on SIGUSR2:
     * after logrotate moved the file away, the lines go to a new file there instead of following
     * the moved one. A path that is now a link, or a file someone else owns, is refused as at start.
     */
    public synchronized void reopen() throws IOException {
        out.close();
        open();
    }

    Path rotated(int generation) {
        return file.resolveSibling(file.getFileName() + "." + generation);
    }

    public Path file() {
        return file;
    }

    /**
     * The answer to a request that changes nothing, or a refusal: written within the caller's
     * share ({@link AuditShares}), else counted as left out. {@code request}: the parsed request,
     * or the raw text (truncated) when it could not be read.
     */
    public void record(Caller caller, Object request, AgentResponse response) {
        Instant now = Instant.now(clock);
        synchronized (this) {
            writeSettledLeftOut(now);
            if (shares.admitRoutine(caller.uid(), caller.name(), isRefusal(response), now)) {
                writeLeftOut(caller.uid(), now);
                append(answer(now, caller, request, response));
            }
        }
    }

    /** The outcome of a request that changes Slurm and whose intent is on record: always written. */
    public void recordOutcome(Caller caller, Object request, AgentResponse response) {
        Instant now = Instant.now(clock);
        synchronized (this) {
            writeLeftOut(caller.uid(), now);
            append(answer(now, caller, request, response));
        }
    }

    /**
     * Whether {@code caller} may make one more request that changes Slurm now: each uid makes at
     * most {@link AuditShares#CHANGES_PER_MINUTE} a minute (after a burst), as each is two lines
     * that are always written. Takes that request's place when true.
     */
    public synchronized boolean admitChange(Caller caller) {
        return shares.admitChange(caller.uid(), Instant.now(clock));
    }

    /** Refused, or nothing but refusals: what a caller can cause without being entitled to anything. */
    static boolean isRefusal(AgentResponse response) {
        return !response.ok() && response.decisions().stream().allMatch(d -> NodeDecision.REFUSED.equals(d.decision()));
    }

    private static Map<String, Object> answer(Instant now, Caller caller, Object request, AgentResponse response) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("time", now.toString());
        entry.put("uid", caller.uid());
        entry.put("user", caller.name());
        entry.put("request", request);
        entry.put("ok", response.ok());
        entry.put("decisions", response.decisions());
        entry.put("why", response.message());
        return entry;
    }

    /**
     * One line before a request that changes Slurm's state is acted on, always written (the
     * request was admitted by {@link #admitChange}); false when it could not be written, and then
     * the request must be refused: nothing is done that the audit does not show.
     */
    public boolean recordIntent(Caller caller, Object request) {
        Instant now = Instant.now(clock);
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("time", now.toString());
        entry.put("uid", caller.uid());
        entry.put("user", caller.name());
        entry.put("request", request);
        entry.put("intent", "deciding now; the outcome follows on its own line");
        synchronized (this) {
            writeLeftOut(caller.uid(), now);
            return append(entry);
        }
    }

    /** Says what {@code uid} had left out, if anything, before its next line. */
    private void writeLeftOut(long uid, Instant now) {
        AuditShares.LeftOut leftOut = shares.takeLeftOut(uid);
        if (leftOut != null) {
            append(leftOutEntry(leftOut, now));
        }
    }

    /** Says what uids that went quiet had left out, a while after their last line left out. */
    private void writeSettledLeftOut(Instant now) {
        for (AuditShares.LeftOut leftOut : shares.takeSettled(now, false)) {
            append(leftOutEntry(leftOut, now));
        }
    }

    private static Map<String, Object> leftOutEntry(AuditShares.LeftOut leftOut, Instant now) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("time", now.toString());
        entry.put("uid", leftOut.uid());
        entry.put("user", leftOut.user());
        entry.put("refusalsLeftOut", leftOut.refusals());
        entry.put("answersLeftOut", leftOut.answers());
        entry.put("since", leftOut.since().toString());
        return entry;
    }

    /**
     * One line for a sweep the agent ran on its own schedule ({@code autoresume agent
     * --sweep-every}): the whole report, as {@code autoresume sweep --json} prints it, or why
     * the sweep did not run ({@code report} then is a short text).
     */
    public void recordSweep(Object report) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("time", Instant.now(clock).toString());
        entry.put("sweep", report);
        append(entry);
    }

    /** One line for an Xid the agent's own watch saw on its node, and what the agent did about it. */
    public void recordXid(Map<String, Object> sighting, String outcome) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("time", Instant.now(clock).toString());
        entry.put("xid", sighting);
        entry.put("outcome", outcome);
        append(entry);
    }

    /**
     * One line for a change in what one of the agent's own checks finds on its node, and what it
     * did; {@code key} names the check's kind ({@code gpuCheck}, {@code slurmdCheck}).
     */
    public void recordHealth(String key, Map<String, Object> finding, String outcome) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("time", Instant.now(clock).toString());
        entry.put(key, finding);
        entry.put("outcome", outcome);
        append(entry);
    }

    /** One line for a requeued job whose start the agent moved (or could not), at its owner's supervisor's request. */
    public void recordRequeue(String jobId, long owner, String outcome) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("time", Instant.now(clock).toString());
        entry.put("requeue", Map.of("jobId", jobId, "owner", owner));
        entry.put("outcome", outcome);
        append(entry);
    }

    private boolean append(Map<String, Object> entry) {
        byte[] line = (AgentJson.line(entry) + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (this) {
            try {
                if (size > 0 && size + line.length > maxBytes) {
                    rotate();
                }
                out.write(line);
                out.flush();
                size += line.length;
                return true;
            } catch (IOException e) {
                // Say loudly that the record is missing; a request about to act is refused (recordIntent).
                LOG.error(
                        "could not write the audit log {}: {}; entry: {}",
                        file,
                        e.getMessage(),
                        new String(line, StandardCharsets.UTF_8).strip());
                return false;
            }
        }
    }

    @Override
    public synchronized void close() throws IOException {
        Instant now = Instant.now(clock);
        for (AuditShares.LeftOut leftOut : shares.takeSettled(now, true)) {
            append(leftOutEntry(leftOut, now));
        }
        out.close();
    }
}
