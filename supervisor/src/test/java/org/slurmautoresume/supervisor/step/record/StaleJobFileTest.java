package org.slurmautoresume.supervisor.step.record;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StaleJobFileTest {

    private static final Instant START = Instant.parse("2026-11-23T10:00:00Z");

    @TempDir
    Path dir;

    private Path writtenAt(Instant when) throws IOException {
        Path file = Files.writeString(dir.resolve("autoresume-events-alice-7.jsonl"), "{}\n");
        Files.setLastModifiedTime(file, FileTime.from(when));
        return file;
    }

    @Test
    void aFileFromBeforeANeverRequeuedJobStartedIsAnotherJobsAndGoes() throws IOException {
        Path file = writtenAt(START.minusSeconds(3600));
        assertTrue(StaleJobFile.discard(file, 0, Optional.of(START)));
        assertFalse(Files.exists(file));
    }

    @Test
    void anEarlierRunOfARequeuedJobAndThisRunsOwnWritesStay() throws IOException {
        Path earlierRun = writtenAt(START.minusSeconds(3600));
        assertFalse(StaleJobFile.discard(earlierRun, 1, Optional.of(START)));
        assertTrue(Files.exists(earlierRun));
        Path thisRun = writtenAt(START.plusMillis(300)); // an earlier srun of this run
        assertFalse(StaleJobFile.discard(thisRun, 0, Optional.of(START)));
        assertTrue(Files.exists(thisRun));
    }

    @Test
    void noFileOrNoStartTimeChangesNothing() throws IOException {
        assertFalse(StaleJobFile.discard(dir.resolve("missing"), 0, Optional.of(START)));
        Path file = writtenAt(START.minusSeconds(10));
        assertFalse(StaleJobFile.discard(file, 0, Optional.empty()));
        assertTrue(Files.exists(file));
    }
}
