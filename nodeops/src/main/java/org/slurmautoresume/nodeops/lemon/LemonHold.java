package org.slurmautoresume.nodeops.lemon;

import java.util.List;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.model.Node;

/**
 * The toolkit's hold of a lemon node: its reason, {@code autoresume: lemon: marked faulty 3 times
 * ...}, and how to tell it.
 *
 * <p>The reason is no {@code Action:} reason on purpose. Every part of the toolkit that returns a
 * node (the sweep, the agent at a job's request) returns only nodes carrying its own
 * {@code Action:} marks, so nothing of the toolkit ever returns a held node: only an
 * administrator's {@code autoresume node resume} (or {@code scontrol update state=resume}) does.
 * And it begins like the toolkit's other own reasons ({@code autoresume: disk full: ...}), so
 * nobody reads it as a person's.
 */
public final class LemonHold {

    /** How every reason of this hold begins; the toolkit owns it. */
    public static final String PREFIX = "autoresume: lemon: ";

    /** Slurm keeps longer reasons, but a reason is read in one line of sinfo. */
    static final int MAX_REASON = 200;

    private LemonHold() {}

    public static boolean isHold(String reasonText) {
        return reasonText != null && reasonText.startsWith(PREFIX);
    }

    /**
     * The hold itself: {@code state=fail} with {@code reason}, or {@code state=down} for a node
     * Slurm shows DOWN, so the hold keeps the state it finds. {@code node} null (not read): FAIL.
     */
    public static NodeMark mark(String name, Node node, String reason) {
        return new NodeMark(
                name, node != null && node.state().isDown() ? NodeMark.State.DOWN : NodeMark.State.FAIL, reason);
    }

    /** The reason a held node gets: why, when the last mark was, and how to return it. */
    public static String reason(LemonVerdict verdict) {
        List<FaultMark> counted = verdict.counted();
        String last = counted.isEmpty()
                ? ""
                : ", last " + counted.get(counted.size() - 1).time();
        String reason = PREFIX + verdict.why() + last + "; kept out for a person: autoresume node lemons";
        return reason.length() <= MAX_REASON ? reason : reason.substring(0, MAX_REASON);
    }
}
