package org.slurmautoresume.supervisor.step.record;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.supervisor.policy.RestartLevel;
import org.slurmautoresume.supervisor.policy.RestartRecord;

class RestartHistoryFileTest {

    private static final Instant T0 = Instant.parse("2026-11-23T00:00:00Z");

    @TempDir
    Path dir;

    @Test
    void recordsComeBackInOrder() throws IOException {
        RestartHistoryFile file = new RestartHistoryFile(dir, "alice", "42");
        assertEquals(List.of(), file.read(0, Optional.empty()));
        RestartRecord first = new RestartRecord(T0, RestartLevel.RERUN_IN_PLACE);
        RestartRecord second = new RestartRecord(T0.plusMillis(1500), RestartLevel.REQUEUE_JOB);
        file.append(first);
        file.append(second);
        assertEquals(List.of(first, second), new RestartHistoryFile(dir, "alice", "42").read(1, Optional.empty()));
        assertEquals(dir.resolve("autoresume-restarts-alice-42"), file.path());
    }

    @Test
    void aJobNeverRequeuedIgnoresRecordsFromBeforeItStarted() throws IOException {
        RestartHistoryFile file = new RestartHistoryFile(dir, "alice", "42");
        file.append(new RestartRecord(T0, RestartLevel.RERUN_IN_PLACE)); // a recycled job id's
        RestartRecord mine = new RestartRecord(T0.plusSeconds(100), RestartLevel.RERUN_IN_PLACE);
        file.append(mine);
        assertEquals(List.of(mine), file.read(0, Optional.of(T0.plusSeconds(50))));
        // Requeued: the earlier run's records are this job's.
        assertEquals(2, file.read(1, Optional.of(T0.plusSeconds(50))).size());
    }

    @Test
    void damagedLinesAreSkipped() throws IOException {
        RestartHistoryFile file = new RestartHistoryFile(dir, "alice", "42");
        Files.writeString(
                file.path(),
                "garbage\n2026-11-23T00:00:00Z NO_SUCH_LEVEL\n2026-11-23T00:00:00Z GIVE_UP extra\n"
                        + "2026-11-23T00:00:01Z REPLACE_NODES_AND_RERUN\n");
        assertEquals(
                List.of(new RestartRecord(T0.plusSeconds(1), RestartLevel.REPLACE_NODES_AND_RERUN)),
                file.read(0, Optional.empty()));
    }
}
