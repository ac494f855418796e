package org.slurmautoresume.supervisor.step.restart;

import java.util.Optional;

/**
 * What the supervisor learnt once, when the job was first read, about the ways back the job has.
 *
 * @param paths        what the job can fall back on; {@link RecoveryPaths#UNKNOWN} when it could not be read
 * @param requeueAtEnd whether a node fault with no repair ends in a requeue, which wants the job's size kept
 * @param agentAway    why no agent answered then; empty when one did
 * @param description  the paths in words, for the once-per-job "recovery paths:" line
 */
public record KnownPaths(RecoveryPaths paths, boolean requeueAtEnd, Optional<String> agentAway, String description) {

    /** Before the job was read, or when it could not be: nothing ruled out. */
    public static final KnownPaths UNKNOWN = new KnownPaths(RecoveryPaths.UNKNOWN, false, Optional.empty(), "");
}
