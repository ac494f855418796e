package org.slurmautoresume.slurm.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A node's state: a base state and zero or more flags, in Slurm's order. {@code scontrol -o
 * show node} (22.05) prints {@code DOWN+NOT_RESPONDING}; sinfo and older texts print
 * {@code DOWN*}. Both parse to {@link #notResponding()} true, and {@link #display()} gives back
 * the form that was read. Examples: {@code IDLE}, {@code IDLE+FAIL}, {@code MIXED+COMPLETING},
 * {@code DOWN+FAIL+NOT_RESPONDING}, {@code IDLE+DRAIN+REBOOT_REQUESTED}, {@code IDLE+CLOUD+POWERED_DOWN}.
 */
public record NodeState(String base, List<String> flags, boolean notResponding) {

    public static final String NOT_RESPONDING = "NOT_RESPONDING";

    public NodeState {
        base = base.toUpperCase(Locale.ROOT);
        flags = List.copyOf(flags);
        notResponding = notResponding || flags.contains(NOT_RESPONDING);
    }

    public static NodeState parse(String text) {
        String trimmed = text.strip();
        if (trimmed.isEmpty() || trimmed.startsWith("+") || trimmed.startsWith("*")) {
            throw new IllegalArgumentException("not a node state: \"" + text + "\"");
        }
        boolean starred = trimmed.indexOf('*') >= 0;
        String[] parts = trimmed.replace("*", "").split("\\+");
        List<String> flags = new ArrayList<>();
        for (int i = 1; i < parts.length; i++) {
            String flag = parts[i].toUpperCase(Locale.ROOT);
            if (!flag.isEmpty() && !flags.contains(flag)) {
                flags.add(flag);
            }
        }
        return new NodeState(parts[0], flags, starred);
    }

    public boolean has(String flagOrBase) {
        String wanted = flagOrBase.toUpperCase(Locale.ROOT);
        return base.equals(wanted) || flags.contains(wanted);
    }

    public boolean isDown() {
        return has("DOWN");
    }

    /** FAIL as a flag ({@code IDLE+FAIL}) or a base ({@code FAIL}, {@code FAILING}). */
    public boolean isFail() {
        return has("FAIL") || has("FAILING");
    }

    public boolean isDrain() {
        return has("DRAIN") || has("DRAINED") || has("DRAINING");
    }

    /** Down, failed or silent: a node a step must not be re-run on. */
    public boolean isUnhealthy() {
        return isDown() || isFail() || notResponding;
    }

    /**
     * Someone already took the node out of service, with a reason of their own: down, drained,
     * failing, or a reboot pending. UNKNOWN is not: a restarted slurmctld holds every node UNKNOWN
     * until its slurmd registers again, whatever the node's health.
     */
    public boolean isTakenOut() {
        return isDown() || isDrain() || isFail() || has("REBOOT_REQUESTED") || has("REBOOT_ISSUED");
    }

    /**
     * Ready for new work: idle or partly used, with no flag that keeps the scheduler away.
     * BLOCKED (24.05) is a node an exclusive-topology job holds unused; EXTERNAL (25.05) is a
     * node with no slurmd: neither can take a job, whatever its base state says.
     */
    public boolean isSchedulable() {
        boolean baseOk = base.equals("IDLE") || base.equals("MIXED") || base.equals("ALLOCATED");
        return baseOk
                && !notResponding
                && !isFail()
                && !isDrain()
                && !has("MAINTENANCE")
                && !has("REBOOT_REQUESTED")
                && !has("REBOOT_ISSUED")
                && !has("POWERED_DOWN")
                && !has("POWERING_DOWN")
                && !has("POWER_DOWN")
                && !has("POWERING_UP")
                && !has("POWER_UP")
                && !has("RESERVED")
                && !has("BLOCKED")
                && !has("EXTERNAL");
    }

    /** The text Slurm printed: {@code DOWN*} when read with a star, else base and flags. */
    public String display() {
        StringBuilder out = new StringBuilder(base);
        if (notResponding && !flags.contains(NOT_RESPONDING)) {
            out.append('*');
        }
        for (String flag : flags) {
            out.append('+').append(flag);
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return display();
    }
}
