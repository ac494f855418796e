package org.slurmautoresume.supervisor.step.record;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * The supervisor's per-job files are named by job id, and Slurm reuses job ids (MaxJobId, or a
 * controller started with its state cleared, as the local cluster is on every {@code up}). A file
 * last written before the job started belongs to another job with the same id, unless the job was
 * requeued (then the earlier run wrote it); such a file is removed before the job writes its own.
 */
public final class StaleJobFile {

    private StaleJobFile() {}

    /** Removes {@code file} when it is older than a never-requeued job; true when it did. */
    public static boolean discard(Path file, int requeues, Optional<Instant> started) throws IOException {
        if (requeues > 0 || started.isEmpty()) {
            return false;
        }
        try {
            if (Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS)
                    .toInstant()
                    .isBefore(started.get())) {
                Files.delete(file);
                return true;
            }
        } catch (NoSuchFileException e) {
            return false;
        }
        return false;
    }
}
