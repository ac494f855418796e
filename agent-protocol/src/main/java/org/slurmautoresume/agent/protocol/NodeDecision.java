package org.slurmautoresume.agent.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What the agent decided about one node. {@code decision} is one of the {@code Decision} words;
 * {@code evidence} is what the agent itself saw (Slurm's state, a failed connect), {@code why}
 * the reason for the decision.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeDecision(String node, String decision, String evidence, String why) {

    /** The words {@code decision} takes. */
    public static final String WATCHED = "watched";
    public static final String HEALTHY = "healthy";
    public static final String UNHEALTHY = "unhealthy";
    public static final String MARKED = "marked";
    public static final String RESUMED = "resumed";
    public static final String REBOOTING = "reboot-requested";
    public static final String REPLACING = "replacement-started";
    public static final String REFUSED = "refused";
    public static final String FAILED = "failed";

    public boolean refusedOrFailed() {
        return REFUSED.equals(decision) || FAILED.equals(decision);
    }
}
