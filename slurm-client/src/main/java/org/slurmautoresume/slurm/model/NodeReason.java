package org.slurmautoresume.slurm.model;

import java.time.LocalDateTime;
import java.util.Optional;

/**
 * Why a node is down, drained or failed: free text, plus the user and time slurmctld appends
 * as {@code [user@2026-11-22T04:05:06]}. The text may contain spaces and {@code =}.
 *
 * <p>Since 23.02 slurmctld keeps a reason already set and appends its own after
 * {@code " : "} ({@code Action:Replace : Not responding}); the user and time are then the
 * appender's. Compare reasons with {@link #isAction} or {@link #startsWith}, never with equals.
 */
public record NodeReason(String text, Optional<String> user, Optional<LocalDateTime> time) {

    /** What slurmctld writes between a reason and the one it appends (set_node_reason). */
    public static final String APPENDED = " : ";

    public static Optional<NodeReason> parse(String raw) {
        if (raw == null) {
            return Optional.empty();
        }
        String trimmed = raw.strip();
        if (trimmed.isEmpty() || trimmed.equals("(null)") || trimmed.equalsIgnoreCase("none")) {
            return Optional.empty();
        }
        if (trimmed.endsWith("]")) {
            int open = trimmed.lastIndexOf('[');
            int at = open < 0 ? -1 : trimmed.indexOf('@', open);
            if (open >= 0 && at > open) {
                String user = trimmed.substring(open + 1, at);
                Optional<LocalDateTime> time = SlurmTime.parse(trimmed.substring(at + 1, trimmed.length() - 1));
                if (time.isPresent() && !user.isEmpty()) {
                    return Optional.of(new NodeReason(trimmed.substring(0, open).strip(), Optional.of(user), time));
                }
            }
        }
        return Optional.of(new NodeReason(trimmed, Optional.empty(), Optional.empty()));
    }

    /**
     * True when the reason is {@code reason} (ignoring case), alone or with reasons slurmctld
     * appended after it: {@code Node unexpectedly rebooted : Not responding} starts with
     * {@code Node unexpectedly rebooted}.
     */
    public boolean startsWith(String reason) {
        return text.equalsIgnoreCase(reason)
                || text.regionMatches(true, 0, reason + APPENDED, 0, reason.length() + APPENDED.length());
    }

    /**
     * True when the reason names a toolkit action such as {@code Action:Replace}: alone, with
     * words after a blank ({@code Action:Reboot xid 79}), or with a reason slurmctld appended
     * ({@code Action:Replace : Not responding}).
     */
    public boolean isAction(String action) {
        return text.equalsIgnoreCase("Action:" + action)
                || text.regionMatches(true, 0, "Action:" + action + " ", 0, action.length() + 8);
    }

    /**
     * True when LBNL Node Health Check (NHC, a site's {@code HealthCheckProgram}) set the reason:
     * NHC drains a node whose check fails with {@code NHC: <check>: <what failed>}, and returns
     * only nodes with such a reason to service itself.
     */
    public boolean isNhc() {
        return text.startsWith(NHC_PREFIX);
    }

    /** How NHC begins every reason it sets. */
    public static final String NHC_PREFIX = "NHC:";
}
