package org.slurmautoresume.supervisor.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoint directories laid out the way PyTorch DCP writes them, on a real file system. */
class CheckpointLocatorTest {

    @TempDir
    Path dir;

    private Path checkpoint(String name, String marker, long writtenAtEpochSecond) throws IOException {
        Path step = Files.createDirectories(dir.resolve(name));
        Files.writeString(step.resolve("__0_0.distcp"), "shard");
        if (marker != null) {
            Path file = Files.writeString(step.resolve(marker), "meta");
            Files.setLastModifiedTime(file, FileTime.from(Instant.ofEpochSecond(writtenAtEpochSecond)));
        }
        return step;
    }

    @Test
    void theNewestCompleteCheckpointWinsAndAHalfWrittenOneIsPassedOver() throws IOException {
        checkpoint("step-100", ".metadata", 1_000);
        Path complete = checkpoint("step-200", ".metadata", 2_000);
        checkpoint("step-300", null, 0); // the fault came while it was being written: no marker
        Optional<CheckpointLocator.Checkpoint> newest = new CheckpointLocator(dir, ".metadata").newest();
        assertEquals(complete, newest.orElseThrow().path());
        assertEquals(Instant.ofEpochSecond(2_000), newest.get().writtenAt());
    }

    @Test
    void aCheckpointOverwrittenInPlaceIsTheDirectoryItself() throws IOException {
        Files.writeString(dir.resolve(".metadata"), "meta");
        assertEquals(
                dir,
                new CheckpointLocator(dir, ".metadata").newest().orElseThrow().path());
    }

    @Test
    void noCheckpointYetAndAMissingDirectoryAreBothEmpty() throws IOException {
        checkpoint("step-1", null, 0);
        assertTrue(new CheckpointLocator(dir, ".metadata").newest().isEmpty());
        assertTrue(new CheckpointLocator(dir.resolve("absent"), ".metadata")
                .newest()
                .isEmpty());
    }

    @Test
    void aSymbolicLinkIsNotFollowed() throws IOException {
        Path elsewhere = Files.createDirectories(dir.resolve("..").resolve(dir.getFileName() + "-elsewhere"));
        Files.writeString(elsewhere.resolve(".metadata"), "meta");
        Files.createSymbolicLink(dir.resolve("step-999"), elsewhere);
        assertTrue(new CheckpointLocator(dir, ".metadata").newest().isEmpty());
    }

    @Test
    void theEnvironmentNamesTheDirectoryAndTheMarker() {
        assertTrue(CheckpointLocator.fromEnvironment(Map.of()).isEmpty());
        CheckpointLocator fromEnv = CheckpointLocator.fromEnvironment(Map.of(
                        CheckpointLocator.DIR, "ckpt", "PWD", "/scratch/job", CheckpointLocator.MARKER, "COMPLETE"))
                .orElseThrow();
        assertEquals(Path.of("/scratch/job/ckpt"), fromEnv.dir());
        assertEquals("COMPLETE", fromEnv.marker());
        assertEquals(
                CheckpointLocator.DEFAULT_MARKER,
                CheckpointLocator.fromEnvironment(Map.of(CheckpointLocator.DIR, "/c"))
                        .orElseThrow()
                        .marker());
        assertThrows(IllegalArgumentException.class, () -> new CheckpointLocator(dir, "../x"));
    }
}
