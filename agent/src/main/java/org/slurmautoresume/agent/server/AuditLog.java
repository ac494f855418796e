package org.slurmautoresume.agent.server;

import org.slurmautoresume.agent.protocol.AgentJson;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.slurm.files.OwnedFiles;
import org.slurmautoresume.slurm.model.Caller;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One JSON line per request the agent answered: when, who (from the peer credentials), what was
 * asked, what was decided and why. Appended and flushed line by line, so a crash loses nothing
 * already decided. Caller text only ever appears as a JSON string value, escaped by the writer,
 * so a request cannot forge or split lines.
 */
public final class AuditLog implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(AuditLog.class);

    private final Path file;
    private final OutputStream out;
    private final Clock clock;

    public AuditLog(Path file) throws IOException {
        this(file, Clock.systemUTC());
    }

    AuditLog(Path file, Clock clock) throws IOException {
        this.file = file;
        this.clock = clock;
        Path dir = file.toAbsolutePath().getParent();
        // The agent is root: a folder another user can write could hold a planted link to any file.
        int uid = OwnedFiles.currentUid();
        if (dir != null) {
            Files.createDirectories(dir);
            OwnedFiles.requireTrustedDirectory(dir, uid);
        }
        this.out = Channels.newOutputStream(OwnedFiles.open(file, uid, PosixFilePermissions.fromString("rw-r-----"),
                StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE));
    }

    public Path file() {
        return file;
    }

    /** {@code request}: the parsed request, or the raw text (truncated) when it could not be read. */
    public void record(Caller caller, Object request, AgentResponse response) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("time", Instant.now(clock).toString());
        entry.put("uid", caller.uid());
        entry.put("user", caller.name());
        entry.put("request", request);
        entry.put("ok", response.ok());
        entry.put("decisions", response.decisions());
        entry.put("why", response.message());
        append(entry);
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

    /** One line for a change in what the agent's own GPU checks find on its node, and what it did. */
    public void recordHealth(Map<String, Object> finding, String outcome) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("time", Instant.now(clock).toString());
        entry.put("gpuCheck", finding);
        entry.put("outcome", outcome);
        append(entry);
    }

    private void append(Map<String, Object> entry) {
        byte[] line = (AgentJson.line(entry) + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (this) {
            try {
                out.write(line);
                out.flush();
            } catch (IOException e) {
                // The decision stands (it was already acted on); say loudly that its record is missing.
                LOG.error("could not write the audit log {}: {}; entry: {}", file, e.getMessage(),
                        new String(line, StandardCharsets.UTF_8).strip());
            }
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
