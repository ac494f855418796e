package org.slurmautoresume.supervisor.policy;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The recovery strategies a job allows, named as in process-level recovery's
 * {@code recover-strategy} list. The order in a job's list is the order they are tried.
 */
public enum Strategy {
    /** Re-run the step on the same nodes: for an application failure or a log-rule violation. */
    RETRY("retry"),
    /** Replace the faulty nodes, grow the job back and re-run the step: for a node fault. */
    RECOVER("recover"),
    /**
     * Before a step that is still running is stopped, signal it and wait a grace period so it
     * can write a last-words checkpoint. Not a recovery by itself: it goes with whichever of
     * the others is chosen, wherever it stands in the list.
     */
    DUMP("dump"),
    /** Requeue the whole job ({@code scontrol requeue}): the batch script starts again. */
    REQUEUE("requeue"),
    /** Give up: the step's failure becomes the job's. */
    EXIT("exit");

    private final String configName;

    Strategy(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    public static Optional<Strategy> fromConfigName(String name) {
        String wanted = name.strip().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(s -> s.configName.equals(wanted)).findFirst();
    }

    public static String allConfigNames() {
        return Arrays.stream(values()).map(Strategy::configName).collect(Collectors.joining(", "));
    }
}
