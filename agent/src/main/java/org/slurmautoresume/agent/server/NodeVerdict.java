package org.slurmautoresume.agent.server;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * What this node's agent says of its own node on the liveness port: "ok", or "unhealthy" for a
 * while after it marked the node (an Xid). The mark itself is in Slurm, which stays the record;
 * the word only tells the supervisors that probe the node every second to read Slurm now rather
 * than at their next periodic read. It lapses by itself, so a node an administrator returned to
 * service is not called unhealthy for ever by an agent that was not restarted.
 */
public final class NodeVerdict {

    /** Long enough for every supervisor probing each second to see it, several times over. */
    static final Duration UNHEALTHY_FOR = Duration.ofSeconds(60);

    private final LongSupplier nanoClock;
    /** Until when the node counts as unhealthy; "now" at the start, so a verdict nobody marked says ok. */
    private volatile long unhealthyUntil;

    public NodeVerdict() {
        this(System::nanoTime);
    }

    NodeVerdict(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.unhealthyUntil = nanoClock.getAsLong();
    }

    /** The node was just marked out of service by this agent. */
    public void markedUnhealthy() {
        unhealthyUntil = nanoClock.getAsLong() + UNHEALTHY_FOR.toNanos();
    }

    /** Whether the greeting says "unhealthy" now rather than "ok". */
    public boolean unhealthy() {
        return nanoClock.getAsLong() - unhealthyUntil < 0;
    }
}
