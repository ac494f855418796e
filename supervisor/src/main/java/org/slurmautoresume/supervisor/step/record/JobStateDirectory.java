package org.slurmautoresume.supervisor.step.record;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.slurmautoresume.slurm.files.OwnedFiles;
import org.slurmautoresume.slurm.files.UnsafePathException;

/**
 * Where a user's supervisors keep their per-job files (restart history, timeline, preflight
 * marker): a directory only that user can have made. In the shared {@code /tmp} a name anyone can
 * predict lets another user create the file first, forging a job's restart budget or history, or
 * plant a link that the job would write through. So the files live in {@code $XDG_RUNTIME_DIR/autoresume}
 * when the job's environment names a runtime directory that is this uid's own (pam_systemd's
 * {@code /run/user/UID}), else in {@code ${TMPDIR:-/tmp}/autoresume-UID}, made 0700 and checked
 * on every use. A directory planted by another user is refused with one line, and the step runs on
 * as it does when no file can be written: budgets count per srun and no timeline is kept.
 */
public final class JobStateDirectory {

    private static volatile Integer uid;

    private JobStateDirectory() {}

    /** The process's uid, read once. */
    public static int uid() {
        Integer known = uid;
        if (known == null) {
            try {
                known = OwnedFiles.currentUid();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot tell this process's uid from /proc/self", e);
            }
            uid = known;
        }
        return known;
    }

    /**
     * A user name as it may appear in a file name here: USER comes from the environment, and a
     * slash or ".." in it must not lead a file out of the checked directory.
     */
    public static String nameSafe(String user) {
        String safe = user.replaceAll("[^A-Za-z0-9._-]", "_");
        return safe.isEmpty() || safe.chars().allMatch(c -> c == '.') ? "_" + safe : safe;
    }

    /** The state directory for {@code uid} in the environment {@code env} (not made nor checked here). */
    public static Path locate(Map<String, String> env, int uid) {
        String runtime = env.getOrDefault("XDG_RUNTIME_DIR", "");
        if (!runtime.isBlank() && Path.of(runtime).isAbsolute()) {
            try {
                // A runtime directory passed on from a login node may be missing here or be another's.
                OwnedFiles.requirePrivateDirectory(Path.of(runtime), uid);
                return Path.of(runtime, "autoresume");
            } catch (IOException e) {
                // not this uid's runtime directory on this host: fall through to TMPDIR
            }
        }
        String tmp = env.getOrDefault("TMPDIR", "");
        return Path.of(tmp.isBlank() ? "/tmp" : tmp).resolve("autoresume-" + uid);
    }

    /**
     * Makes {@code dir} when missing and checks it is this process's private directory; empty,
     * after one line through {@code say}, when it is not (planted, a link, open to others).
     */
    public static Optional<Path> open(Path dir, Consumer<String> say) {
        try {
            return Optional.of(OwnedFiles.privateDirectory(dir, uid()));
        } catch (UnsafePathException e) {
            say.accept("refusing the per-job state directory: " + e.getMessage() + "; the step runs without it"
                    + " (restart budgets count per srun, no timeline is kept). Remove it or set TMPDIR elsewhere");
        } catch (IOException e) {
            say.accept("cannot make the per-job state directory " + dir + " (" + e.getMessage() + "); the step runs"
                    + " without it (restart budgets count per srun, no timeline is kept)");
        }
        return Optional.empty();
    }
}
