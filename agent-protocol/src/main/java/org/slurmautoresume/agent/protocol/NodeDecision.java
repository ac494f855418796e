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
    /**
     * Someone else (an administrator, the site's health check, slurmctld) took the node out of
     * service already: the agent changed nothing and recorded nothing; {@code why} says who. For a
     * job's recovery the node is out, as if marked; it is not the job's to return to service.
     */
    public static final String ALREADY_OUT = "already-out";

    public static final String RESUMED = "resumed";
    public static final String REBOOTING = "reboot-requested";
    public static final String REPLACING = "replacement-started";
    /**
     * Asked to return the node to service (a resume, a reboot), the agent found it a lemon (marked
     * faulty as often as the site's rule allows) and held it for an administrator instead, with
     * the toolkit's reason {@code autoresume: lemon: ...}: the job's claim on it ends, and it will
     * not come back for this job.
     */
    public static final String HELD_LEMON = "held-lemon";

    public static final String REFUSED = "refused";
    public static final String FAILED = "failed";

    /** The node is out of service now: marked by the agent, or already out by someone else's decision. */
    public boolean outOfService() {
        return MARKED.equals(decision) || ALREADY_OUT.equals(decision);
    }

    /** The node will not return for the job: held as a lemon ({@link #HELD_LEMON}). */
    public boolean heldAsLemon() {
        return HELD_LEMON.equals(decision);
    }

    public boolean refusedOrFailed() {
        return REFUSED.equals(decision) || FAILED.equals(decision);
    }
}
