package org.slurmautoresume.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.slurm.exec.DebugLogging;
import org.slurmautoresume.slurm.model.SlurmVersion;
import org.slurmautoresume.supervisor.step.settings.Allocation;

/**
 * Slurm's release as the launcher asked it: for {@code nodes}, which reads Slurm's release before
 * its first query (it chooses scontrol's JSON or text), and {@code health}, which tells whether the
 * listed plugin loads in it, the launcher starts {@code scontrol --version} before the JVM and
 * leaves its answer on a pipe
 * ({@link #FD}), so that it answers while the JVM starts rather than after. No answer, or one
 * that names no release, leaves the commands to ask scontrol themselves, as they always did.
 */
final class LauncherRelease {

    /** The launcher's pipe: a descriptor number, read as {@code /proc/self/fd/N}. */
    static final String FD = "AUTORESUME_SLURM_VERSION_FD";

    /** As long as the commands' own {@code scontrol --version} may take. */
    static final Duration WAIT = Duration.ofSeconds(30);

    private LauncherRelease() {}

    /** The release the launcher's scontrol printed; empty when it left no pipe or the pipe says nothing usable. */
    static Optional<SlurmVersion> read(Map<String, String> environment, Duration wait) {
        return read(pipe(environment), wait);
    }

    /** The launcher's pipe, {@code /proc/self/fd/N}, when {@link #FD} names a descriptor number. */
    static Optional<Path> pipe(Map<String, String> environment) {
        return Allocation.launcherPipe(environment, FD);
    }

    static Optional<SlurmVersion> read(Optional<Path> launcherPipe, Duration wait) {
        if (launcherPipe.isEmpty()) {
            return Optional.empty();
        }
        // A daemon thread, so that an scontrol that never ends cannot hold the command longer than
        // asking it again would. Joined, not a future: java.util.concurrent's classes were a
        // share of every nodes and health start.
        Reading reading = new Reading(launcherPipe.get());
        Thread reader = new Thread(reading, "launcher-release");
        reader.setDaemon(true);
        reader.start();
        try {
            reader.join(wait.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        String problem = reader.isAlive()
                ? "no answer within " + wait.toMillis() + " ms"
                : reading.failure != null ? reading.failure.toString() : null;
        if (problem == null) {
            try {
                return Optional.of(SlurmVersion.parse(reading.text));
            } catch (IllegalArgumentException e) {
                problem = e.toString();
            }
        }
        DebugLogging.debug(LauncherRelease.class, "the launcher's scontrol --version unusable ({})", problem);
        return Optional.empty();
    }

    /** The pipe read to its end on the reader's thread; read back after the join. */
    private static final class Reading implements Runnable {
        private final Path pipe;
        private volatile String text;
        private volatile Exception failure;

        Reading(Path pipe) {
            this.pipe = pipe;
        }

        @Override
        public void run() {
            try {
                text = Files.readString(pipe);
            } catch (IOException | RuntimeException e) {
                failure = e;
            }
        }
    }
}
