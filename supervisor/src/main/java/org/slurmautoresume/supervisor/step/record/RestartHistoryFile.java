package org.slurmautoresume.supervisor.step.record;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slurmautoresume.slurm.files.OwnedFiles;
import org.slurmautoresume.supervisor.policy.RestartLevel;
import org.slurmautoresume.supervisor.policy.RestartRecord;

/**
 * The restarts made over a job's life, one line each ({@code <instant> <LEVEL>}), in the
 * user's {@link JobStateDirectory}, opened without following links and only when the user owns it. {@code jobMaxRetryCount} and {@code maxFullJobRestarts} count
 * over the job's whole life, and a requeue starts the batch script, and so a new supervisor,
 * from nothing: only a file outlives it. Every srun of the job shares the file.
 *
 * <p>Slurm recycles job ids (MaxJobId, a controller started with its state cleared), so when
 * Slurm says the job was never requeued, records from before the job's start belong to another
 * job and are dropped. The file lives on the batch host; a requeue that lands elsewhere starts
 * with no history there (say so, do not guess).
 */
public final class RestartHistoryFile {

    private final Path file;

    public RestartHistoryFile(Path stateDir, String user, String jobId) {
        this.file = stateDir.resolve("autoresume-restarts-" + JobStateDirectory.nameSafe(user) + "-" + jobId);
    }

    public Path path() {
        return file;
    }

    /**
     * The records that belong to this job. {@code requeues} is Slurm's count of the job's
     * restarts and {@code started} the start of its current run; with no requeue, older records
     * are another job's. Unreadable lines are skipped: a damaged history must not stop a step.
     */
    public List<RestartRecord> read(int requeues, Optional<Instant> started) throws IOException {
        Optional<String> text = OwnedFiles.read(file, JobStateDirectory.uid());
        if (text.isEmpty()) {
            return List.of();
        }
        List<String> lines = text.get().lines().toList();
        List<RestartRecord> records = new ArrayList<>();
        for (String line : lines) {
            parse(line)
                    .filter(r -> requeues > 0 || started.isEmpty() || !r.at().isBefore(started.get()))
                    .ifPresent(records::add);
        }
        return records;
    }

    /**
     * Counts a restart toward the budgets in the job's history file, for later runs; says so
     * when it cannot. A null record (nothing to count) or no file does nothing.
     */
    public static void remember(Optional<RestartHistoryFile> file, RestartRecord record, Consumer<String> say) {
        if (record == null || file.isEmpty()) {
            return;
        }
        try {
            file.get().append(record);
        } catch (IOException e) {
            say.accept("cannot record the restart in " + file.get().path() + " (" + e.getMessage()
                    + "); budgets over the job's life will not count it after a requeue");
        }
    }

    public void append(RestartRecord record) throws IOException {
        OwnedFiles.append(
                file,
                JobStateDirectory.uid(),
                record.at() + " " + record.level().name() + "\n");
    }

    static Optional<RestartRecord> parse(String line) {
        String[] parts = line.strip().split(" ");
        if (parts.length != 2) {
            return Optional.empty();
        }
        try {
            return Optional.of(new RestartRecord(Instant.parse(parts[0]), RestartLevel.valueOf(parts[1])));
        } catch (DateTimeParseException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
