package org.slurmautoresume.slurm.model;

import java.time.LocalDateTime;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One job as {@code scontrol show job} reports it. {@code nodeList} is Slurm's hostlist
 * expression (empty while pending); {@code raw} keeps every printed field.
 */
public record Job(
        String jobId,
        String name,
        String userName,
        OptionalInt userId,
        JobState state,
        String reason,
        String nodeList,
        int numNodes,
        Optional<String> batchHost,
        String excludedNodes,
        String requiredNodes,
        String partition,
        int restarts,
        boolean requeue,
        boolean batch,
        Optional<ExitCode> exitCode,
        Optional<LocalDateTime> startTime,
        Optional<LocalDateTime> endTime,
        Map<String, String> raw) {

    public Job {
        raw = RawFields.of(raw);
    }

    /**
     * The node the batch script runs on, for batch jobs only: an salloc allocation also prints a
     * BatchHost (its first node), but no script runs there and the node can be dropped like any
     * other (seen on 22.05).
     */
    public Optional<String> batchScriptHost() {
        return batch ? batchHost : Optional.empty();
    }

    /** {@code ExitCode=2:0}: the exit status and the signal that ended the batch script. */
    public record ExitCode(int status, int signal) {
        public static Optional<ExitCode> parse(String text) {
            if (text == null) {
                return Optional.empty();
            }
            int colon = text.indexOf(':');
            try {
                if (colon < 0) {
                    return Optional.of(new ExitCode(Integer.parseInt(text.strip()), 0));
                }
                return Optional.of(new ExitCode(Integer.parseInt(text.substring(0, colon).strip()),
                        Integer.parseInt(text.substring(colon + 1).strip())));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
    }
}
