package org.slurmautoresume.nodeops.sweep;

import java.util.List;

/**
 * What one sweep would do: {@code actions} to apply, {@code heldBack} held by the safety caps
 * (each with why), {@code findings} on nodes to report that no rule changes, and
 * {@code leftoverJobs}, job records left by job expansion that the sweep reports but may not or
 * cannot change.
 */
public record SweepPlan(
        List<SweepAction> actions, List<Held> heldBack, List<Finding> findings, List<LeftoverJob> leftoverJobs) {

    public SweepPlan(List<SweepAction> actions, List<Held> heldBack, List<Finding> findings) {
        this(actions, heldBack, findings, List.of());
    }

    /** An action the caps held back, and which cap. */
    public record Held(SweepAction action, String why) {}

    /** Something a person should look at; {@code kind} e.g. {@code drained-without-reason}. */
    public record Finding(String kind, String node, String why) {}

    /**
     * A job record to look at: {@code kind} {@code emptied-donor-record} or
     * {@code donor-named-job}; {@code endTime} as Slurm reports it, empty when it reports none.
     */
    public record LeftoverJob(String kind, String jobId, String user, String state, String endTime, String why) {}

    public SweepPlan {
        leftoverJobs = List.copyOf(leftoverJobs);
        actions = List.copyOf(actions);
        heldBack = List.copyOf(heldBack);
        findings = List.copyOf(findings);
    }

    public boolean isEmpty() {
        return actions.isEmpty() && heldBack.isEmpty();
    }
}
