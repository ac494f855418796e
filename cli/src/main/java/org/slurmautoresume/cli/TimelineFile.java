package org.slurmautoresume.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slurmautoresume.slurm.files.OwnedFiles;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobStateDirectory;

/** A job's timeline, found where its supervisors wrote it: what {@code history} lists and {@code job} sums up. */
final class TimelineFile {

    private TimelineFile() {}

    /**
     * The timeline file of {@code user}'s job {@code jobId} (a checked job id) in {@code stateDir}, or
     * in the caller's own state directory when that is null; it may not exist.
     */
    static Path of(CliContext context, Path stateDir, String user, String jobId) {
        Path dir = stateDir;
        if (dir == null) {
            // Your own directory, as your supervisors chose it: one someone else planted could hold a forged history.
            dir = JobStateDirectory.locate(context.environment(), JobStateDirectory.uid());
            try {
                if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                    OwnedFiles.requirePrivateDirectory(dir, JobStateDirectory.uid());
                }
            } catch (IOException e) {
                throw new CliException(
                        ExitCode.FAILED,
                        "refusing the state directory: " + e.getMessage()
                                + " (not made by you; your supervisors refuse it too)",
                        e);
            }
        }
        return EventHistory.fileFor(dir, user, jobId);
    }

    /** The file's events; each line that is not one is said on {@code err} and skipped. */
    static List<EventHistory.Event> read(Path file, PrintWriter err) {
        List<String> skipped = new ArrayList<>();
        List<EventHistory.Event> events;
        try {
            events = EventHistory.read(file, skipped);
        } catch (IOException e) {
            throw new CliException(ExitCode.FAILED, "cannot read " + file + ": " + e.getMessage(), e);
        }
        for (String problem : skipped) {
            err.println("autoresume: skipped a line that is not an event: " + problem);
        }
        return events;
    }
}
