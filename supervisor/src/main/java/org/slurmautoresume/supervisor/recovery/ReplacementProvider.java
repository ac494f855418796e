package org.slurmautoresume.supervisor.recovery;

import java.time.LocalDateTime;
import java.util.Collection;
import java.util.List;
import org.slurmautoresume.slurm.client.NodeMark;

/**
 * Where the nodes that replace failed ones come from. Recovery calls {@link #begin} once, after
 * the failed nodes were marked and dropped from the job, then {@link #ready} until it has the
 * nodes it needs or its wait limit passes.
 */
public interface ReplacementProvider {

    /** The name users configure ({@code AUTORESUME_REPLACEMENT}). */
    String name();

    /** The reason the failed nodes are marked with: replaced, or rebooted and used again. */
    default NodeMark.Action action() {
        return NodeMark.Action.REPLACE;
    }

    /** Starts replacing the failed nodes (a site command, a reboot); nothing for most providers. */
    default void begin(String jobId, List<String> failed) {}

    /**
     * Nodes that can join the job now, at most {@code missing}, none of {@code exclude}; an empty
     * list while none is ready yet.
     *
     * @param failedAt when the fault was confirmed: a node back under its own name must have
     *                 started its slurmd since
     * @throws ProviderException when the nodes still missing can no longer come (the agent held
     *                           a failed node as a lemon): recovery stops waiting
     */
    List<String> ready(
            String jobId, List<String> failed, int missing, Collection<String> exclude, LocalDateTime failedAt);

    /**
     * No replacement: for a job whose only repair is its in-job spares. Recovery asks a provider
     * only when the job has too few nodes left, and this one then says why it cannot help.
     */
    static ReplacementProvider none(String why) {
        return new ReplacementProvider() {
            @Override
            public String name() {
                return "none";
            }

            @Override
            public void begin(String jobId, List<String> failed) {
                throw new ProviderException(why);
            }

            @Override
            public List<String> ready(
                    String jobId,
                    List<String> failed,
                    int missing,
                    Collection<String> exclude,
                    LocalDateTime failedAt) {
                return List.of();
            }
        };
    }

    /** Thrown when a provider cannot go on (the agent refused, a site command is not configured). */
    final class ProviderException extends RuntimeException {
        public ProviderException(String message) {
            super(message);
        }
    }
}
