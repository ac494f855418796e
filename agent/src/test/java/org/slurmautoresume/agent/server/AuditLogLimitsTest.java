package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.slurm.model.Caller;

/** The audit log's size cap, and the agent refusing to act when it cannot record. */
class AuditLogLimitsTest {

    private static final Caller USER = new Caller(1001, "artest");
    private static final Caller ROOT = new Caller(0, "root");

    @TempDir
    Path dir;

    @Test
    void aFloodOfRequestsFillsAtMostTheCappedFiles() throws IOException {
        Path file = dir.resolve("audit.log");
        try (AuditLog audit = new AuditLog(file, Clock.systemUTC(), 4_096)) {
            for (int i = 0; i < 2_000; i++) {
                // Root's lines are never left out (a user's are: AuditSharesTest), so all reach the files.
                audit.record(ROOT, Map.of("op", "mark", "jobId", "7", "n", i), AgentResponse.refused(List.of(), "no"));
            }
            for (int g = 1; g <= AuditLog.KEEP; g++) {
                assertTrue(Files.size(audit.rotated(g)) <= 4_096, "generation " + g);
            }
            assertFalse(Files.exists(audit.rotated(AuditLog.KEEP + 1)), "the oldest is dropped");
        }
        assertTrue(Files.size(file) <= 4_096);
        String newest = Files.readString(file);
        assertTrue(newest.contains("\"n\":1999"), "the newest line is in the live file: " + newest);
    }

    @Test
    void aRequestThatWouldChangeSlurmIsRefusedWhenItCannotBeRecorded() throws IOException {
        Path file = dir.resolve("audit.log");
        AuditLog audit = new AuditLog(file, Clock.systemUTC(), AuditLog.DEFAULT_MAX_BYTES);
        audit.close(); // every later write fails, as on a full or read-only disk
        FakeSlurm slurm = new FakeSlurm().node("node1", "show-node-idle.txt");
        AgentService service = new AgentService(new AgentPolicy(slurm.runner, node -> Optional.empty(), "root"), audit);
        String answer = service.handle(
                USER,
                "{\"op\":\"mark\",\"jobId\":\"7\",\"nodes\":[\"node1\"],\"action\":\"Replace\",\"state\":\"fail\"}");
        assertTrue(answer.startsWith("{\"ok\":false"), answer);
        assertTrue(answer.contains("audit log"), answer);
        assertEquals(List.of(), slurm.updates, "nothing marked unrecorded");
    }

    @Test
    void afterLogrotateMovedTheFileAReopenWritesANewOneThere() throws IOException {
        Path file = dir.resolve("audit.log");
        Path moved = dir.resolve("audit.log-20261126");
        try (AuditLog audit = new AuditLog(file, Clock.systemUTC(), AuditLog.DEFAULT_MAX_BYTES)) {
            audit.recordSweep("before");
            Files.move(file, moved); // logrotate's rename; then its postrotate sends SIGHUP
            audit.reopen();
            audit.recordSweep("after");
        }
        assertTrue(Files.readString(moved).contains("\"before\""), Files.readString(moved));
        assertFalse(Files.readString(moved).contains("\"after\""), "the moved file was written after the reopen");
        assertTrue(Files.readString(file).contains("\"after\""), Files.readString(file));
    }

    @Test
    void aLinkPlantedWhereTheFileWasIsRefusedOnReopenAndNothingIsWrittenThrough() throws IOException {
        Path file = dir.resolve("audit.log");
        Path target = dir.resolve("somewhere-else");
        Files.writeString(target, "");
        AuditLog audit = new AuditLog(file, Clock.systemUTC(), AuditLog.DEFAULT_MAX_BYTES);
        Files.move(file, dir.resolve("audit.log.old"));
        Files.createSymbolicLink(file, target);
        assertThrows(IOException.class, audit::reopen);
        assertFalse(audit.recordIntent(USER, Map.of("op", "mark")), "an intent recorded with no file to hold it");
        assertEquals("", Files.readString(target));
    }
}
