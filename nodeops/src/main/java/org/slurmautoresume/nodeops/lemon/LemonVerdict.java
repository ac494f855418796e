package org.slurmautoresume.nodeops.lemon;

import java.util.List;

/**
 * Whether a node is a lemon, and the marks within the rule's window that say so.
 *
 * @param lemon   the marks in the window reached the rule's number
 * @param counted the fault marks within the window, oldest first
 */
public record LemonVerdict(boolean lemon, List<FaultMark> counted, LemonRule rule) {

    public LemonVerdict {
        counted = List.copyOf(counted);
    }

    /** {@code marked faulty 3 times in 7 days (limit 3 in 7 days)}. */
    public String why() {
        return "marked faulty " + counted.size() + (counted.size() == 1 ? " time" : " times") + " within the last "
                + rule.span() + " (limit " + rule.describe() + ")";
    }
}
