package org.slurmautoresume.supervisor.policy;

/** What went wrong with an attempt, as far as choosing a recovery goes. */
public enum FaultKind {
    /** The step failed on nodes that are healthy. */
    APPLICATION_FAILURE,
    /** A node of the step died, failed a check or stopped answering. */
    NODE_FAULT,
    /** A log rule reached SLOW, HANGING or FAULTED. */
    RULE_VIOLATION
}
