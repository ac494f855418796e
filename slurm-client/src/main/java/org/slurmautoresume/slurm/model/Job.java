package org.slurmautoresume.slurm.model;

import java.time.LocalDateTime;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One job as {@code scontrol show job} reports it. {@code nodeList} is Slurm's hostlist
 * expression (empty while pending). Every field is read the same from the text and from
 * {@code --json}; {@code raw} keeps every printed field under the printing format's own name
 * ({@code SubmitTime} in the text, {@code submit_time} in JSON), for display only: decide on
 * the typed fields.
 *
 * @param submitTime     {@code SubmitTime}, JSON {@code submit_time}
 * @param resizeTime     {@code ResizeTime}, JSON {@code resize_time}; empty until the job was resized
 * @param dependency     {@code Dependency} ({@code expand:12(unfulfilled)}), JSON {@code dependency}; "" for none
 * @param overSubscribe  {@code OverSubscribe} as the text prints it: NO, YES, USER, MCS, TOPO, or OK (shares as the
 *                       partition allows); JSON {@code shared}; "" when not printed
 * @param licenses       {@code Licenses} as requested ({@code a|b} for either), JSON {@code licenses}; "" for none
 * @param arrayJobId     {@code ArrayJobId}, JSON {@code array_job_id}; empty for a job outside an array
 * @param hetJobId       {@code HetJobId}, JSON {@code het_job_id}; empty for a job outside a het job
 * @param expeditedRequeue {@code ExpeditedRequeue=Yes} (25.11), JSON flag {@code EXPEDITED_REQUEUE}
 * @param tres           what 22.05's {@code TRES} prints: the allocation ({@code AllocTRES}, JSON
 *                       {@code tres_alloc_str}), or the request ({@code ReqTRES}, {@code tres_req_str}) while nothing
 *                       is allocated
 * @param tresPer        the per-unit requests ({@code TresPerNode}..., JSON {@code tres_per_node}...)
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
        Optional<LocalDateTime> submitTime,
        Optional<LocalDateTime> resizeTime,
        String dependency,
        String overSubscribe,
        String licenses,
        Optional<String> arrayJobId,
        Optional<String> hetJobId,
        boolean expeditedRequeue,
        String tres,
        TresPer tresPer,
        Map<String, String> raw) {

    public Job {
        Objects.requireNonNull(tresPer);
        raw = RawFields.of(raw);
    }

    /**
     * A job Slurm lists by id on a node (squeue) whose record could not be read (a line break its
     * owner wrote into a value): known to be there, its other fields unknown ({@code name} says so).
     */
    public static Job knownByIdOnly(String jobId, String node) {
        return new Job(
                jobId,
                "(record unreadable)",
                "?",
                OptionalInt.empty(),
                JobState.UNKNOWN,
                "",
                node,
                0,
                Optional.empty(),
                "",
                "",
                "",
                0,
                false,
                false,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                "",
                "",
                "",
                Optional.empty(),
                Optional.empty(),
                false,
                "",
                new TresPer("", "", "", ""),
                Map.of());
    }

    /**
     * The node the batch script runs on, for batch jobs only: an salloc allocation also prints a
     * BatchHost (its first node), but no script runs there and the node can be dropped like any
     * other (seen on 22.05).
     */
    public Optional<String> batchScriptHost() {
        return batch ? batchHost : Optional.empty();
    }

    /**
     * The trackable resources asked for per unit, as written ({@code gres/gpu:2}; 22.05 writes
     * {@code gres:gpu:2}); "" where none was asked for.
     *
     * @param job    {@code TresPerJob}, JSON {@code tres_per_job}
     * @param node   {@code TresPerNode}, JSON {@code tres_per_node}
     * @param socket {@code TresPerSocket}, JSON {@code tres_per_socket}
     * @param task   {@code TresPerTask}, JSON {@code tres_per_task}
     */
    public record TresPer(String job, String node, String socket, String task) {

        public TresPer {
            Objects.requireNonNull(job);
            Objects.requireNonNull(node);
            Objects.requireNonNull(socket);
            Objects.requireNonNull(task);
        }
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
                return Optional.of(new ExitCode(
                        Integer.parseInt(text.substring(0, colon).strip()),
                        Integer.parseInt(text.substring(colon + 1).strip())));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
    }
}
