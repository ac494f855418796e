package org.slurmautoresume.slurm.probe;

import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.model.Node;

/** The agent's own look at a node, beyond what slurmctld reports. */
public interface NodeProber {

    /** Empty when the node answered; else the evidence that it did not, in one line. */
    Optional<String> unreachable(Node node);

    /**
     * The nodes about to be probed, each once, in this order (a watch probes several at once,
     * each from one thread, so {@link #unreachable} must take different nodes concurrently): a
     * prober may ask them all before the first probe reads its answer. A hint; the default does
     * nothing.
     */
    default void roundStarts(List<Node> nodes) {}

    /**
     * Whether the node's own answer to the last probe said it is unhealthy (its agent just marked
     * it): a hint to read Slurm's record now, never evidence by itself. False for probes that get
     * no such answer.
     */
    default boolean reportsUnhealthy(Node node) {
        return false;
    }

    /**
     * Whether the node's own agent answered the last probe, naming the node: such an agent says
     * in its answer when it has just taken its node out of service ({@link #reportsUnhealthy}), so
     * a watch need not read Slurm's record of the node often to learn of its marks. False for
     * probes that get no such answer.
     */
    default boolean speaksForItsNode(Node node) {
        return false;
    }

    /**
     * Whether the last probe of the node was refused outright: the host's kernel answered, and
     * nothing listened where the prober asked. False after an answer, a timeout, or no probe yet.
     */
    default boolean refused(Node node) {
        return false;
    }

    /**
     * Whether the last probe found every daemon of the node that this prober asks, at least two
     * of them one of which answered it before, refusing connections: the host answers and nothing
     * of the node runs any more (its processes were killed, it is shutting down). Stronger than a
     * single refusal, which a restarting slurmd gives too, so a watch may confirm such a node
     * sooner. False for probes that ask only one daemon.
     */
    default boolean gone(Node node) {
        return false;
    }
}
