package org.slurmautoresume.nodeops.health;

/**
 * One node health check. Implementations never throw for what they find on the node: a missing
 * tool is SKIPPED, a fault is FAILED with evidence. They throw only for bugs.
 */
public interface HealthCheck {

    /** The short name users pass to {@code --check} (gpu, dcgm, neuron, efa, cpu, disk). */
    String name();

    /** One line for help and docs: what the check reads. */
    String description();

    CheckResult run(HealthContext context);

    /**
     * Whether the check needs the machine to itself: the others run side by side (each bounded by
     * its own timeouts), and one that loads every CPU runs alone after them, so that neither slows
     * the other into its timeout. False unless a check says so.
     */
    default boolean runsAlone() {
        return false;
    }
}
