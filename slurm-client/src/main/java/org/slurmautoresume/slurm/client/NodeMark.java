package org.slurmautoresume.slurm.client;

import java.util.Locale;
import java.util.Objects;
import org.slurmautoresume.slurm.hostlist.Hostlist;

/**
 * A node taken out of service with a reason: {@code scontrol update nodename=NAME state=STATE
 * reason=REASON}. The agent, the admin commands, the sweep and the health check all mark nodes
 * through this one value, so the reason texts other parts read back ({@code Action:Replace},
 * {@code Action:Reboot}, see {@link org.slurmautoresume.slurm.model.NodeReason#isAction}) are
 * written in one place.
 */
public record NodeMark(String node, State state, String reason) {

    /** The states a node is marked with; returning it to service is {@link SlurmControl#resume}. */
    public enum State {
        /** Running jobs finish, nothing new starts; the node stays out when its slurmd returns. */
        FAIL,
        /** Slurm kills the node's jobs at once. */
        DOWN,
        /** As FAIL, for a problem that needs a person rather than a replacement. */
        DRAIN;

        /** As scontrol takes it. */
        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What the node needs, written as the reason {@code Action:Replace} or {@code Action:Reboot}. */
    public enum Action {
        REPLACE("Replace"),
        REBOOT("Reboot");

        private final String word;

        Action(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }

        /** {@code Action:Replace} or {@code Action:Reboot}. */
        public String reason() {
            return "Action:" + word;
        }

        /** The action whose {@link #word()} is {@code word}, ignoring case; empty for any other word. */
        public static java.util.Optional<Action> named(String word) {
            for (Action action : values()) {
                if (action.word.equalsIgnoreCase(word)) {
                    return java.util.Optional.of(action);
                }
            }
            return java.util.Optional.empty();
        }

        /** {@link #reason()}, then {@code detail} (a person's why) when there is one. */
        public String reason(String detail) {
            return detail == null || detail.isBlank() ? reason() : reason() + " " + detail.strip();
        }
    }

    public NodeMark {
        Objects.requireNonNull(state, "state");
        if (!Hostlist.isValidHostname(node)) {
            throw new IllegalArgumentException("not a valid node name: \"" + node + "\"");
        }
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("marking " + node + " " + state.word() + " needs a reason");
        }
    }

    /** {@code Action:Replace} or {@code Action:Reboot}, then {@code detail} when given. */
    public static NodeMark of(String node, State state, Action action, String detail) {
        return new NodeMark(node, state, action.reason(detail));
    }

    public static NodeMark of(String node, State state, Action action) {
        return of(node, state, action, null);
    }
}
