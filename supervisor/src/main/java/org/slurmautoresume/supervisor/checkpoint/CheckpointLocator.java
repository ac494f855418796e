package org.slurmautoresume.supervisor.checkpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Finds the newest complete checkpoint in a job's checkpoint directory, so a re-run can be told
 * where to resume ({@code AUTO_RESUME_CHECKPOINT}).
 *
 * <p>A checkpoint is complete when its marker file exists: PyTorch's distributed checkpoint
 * (DCP) writes {@code .metadata} after every shard, so a directory holding it was written
 * whole; a save cut short by the fault has shards but no marker and is passed over. Candidates
 * are the directory itself (one checkpoint overwritten in place) and each of its immediate
 * subdirectories (one per step, {@code step-1200/}); the newest is the one whose marker was
 * written last. Symbolic links are not followed, so a link cannot point the re-run elsewhere.
 */
public final class CheckpointLocator {

    /** {@code AUTORESUME_CHECKPOINT_DIR}: where the job writes its checkpoints. */
    public static final String DIR = "AUTORESUME_CHECKPOINT_DIR";
    /** {@code AUTORESUME_CHECKPOINT_MARKER}: the file a complete checkpoint holds (default {@value #DEFAULT_MARKER}). */
    public static final String MARKER = "AUTORESUME_CHECKPOINT_MARKER";

    public static final String DEFAULT_MARKER = ".metadata";

    private final Path dir;
    private final String marker;

    public CheckpointLocator(Path dir, String marker) {
        this.dir = Objects.requireNonNull(dir);
        markerProblem(marker).ifPresent(problem -> {
            throw new IllegalArgumentException(MARKER + " " + problem);
        });
        this.marker = marker;
    }

    /** Why {@code marker} cannot name a checkpoint's marker file; empty when it can. */
    public static Optional<String> markerProblem(String marker) {
        if (marker.isBlank() || marker.contains("/") || marker.equals(".") || marker.equals("..")) {
            return Optional.of("must be a file name, not a path: \"" + marker + "\"");
        }
        return Optional.empty();
    }

    /** The locator the job's environment asks for; empty when it sets no checkpoint directory. */
    public static Optional<CheckpointLocator> fromEnvironment(Map<String, String> env) {
        return resolve(env.get(DIR), env.get(MARKER), env);
    }

    /**
     * A locator for {@code dir}, relative to the step's working directory ({@code PWD} of
     * {@code env}); a null or blank marker is {@value #DEFAULT_MARKER}. Empty when {@code dir} is
     * null or blank.
     */
    public static Optional<CheckpointLocator> resolve(String dir, String marker, Map<String, String> env) {
        if (dir == null || dir.isBlank()) {
            return Optional.empty();
        }
        Path path = Path.of(dir.strip());
        if (!path.isAbsolute()) {
            String cwd = env.getOrDefault("PWD", System.getProperty("user.dir"));
            path = Path.of(cwd).resolve(path);
        }
        return Optional.of(new CheckpointLocator(
                path.normalize(), marker == null || marker.isBlank() ? DEFAULT_MARKER : marker.strip()));
    }

    public Path dir() {
        return dir;
    }

    public String marker() {
        return marker;
    }

    /** The newest complete checkpoint; empty when there is none (yet), or the directory is missing. */
    public Optional<Checkpoint> newest() {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        List<Checkpoint> complete = new ArrayList<>();
        completeAt(dir).ifPresent(complete::add);
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                    completeAt(entry).ifPresent(complete::add);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the checkpoint directory " + dir, e);
        }
        return complete.stream()
                .max(Comparator.comparing(Checkpoint::writtenAt)
                        .thenComparing(c -> c.path().getFileName() == null
                                ? ""
                                : c.path().getFileName().toString()));
    }

    private Optional<Checkpoint> completeAt(Path candidate) {
        Path file = candidate.resolve(marker);
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Checkpoint(
                    candidate,
                    Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS).toInstant()));
        } catch (IOException e) {
            return Optional.empty(); // removed while we looked: not a checkpoint to resume from
        }
    }

    /** A complete checkpoint and when its marker was written. */
    public record Checkpoint(Path path, Instant writtenAt) {}
}
