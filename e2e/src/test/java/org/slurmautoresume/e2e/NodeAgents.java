package org.slurmautoresume.e2e;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An agent on every node, as production runs them: besides the supervisor's own (the batch
 * host's, started by {@link SupervisedSteps}), one bound to each of the other nodes with
 * {@code --node}, each answering liveness probes on its node's port. {@code kill-node} kills a
 * node's agent with the rest of the node; {@link #restartKilled} brings it back after the node
 * was revived, as a replacement node boots with its agent.
 */
final class NodeAgents {

    private final Path base;
    private final Map<String, LocalAgent> agents = new LinkedHashMap<>();

    private NodeAgents(Path base) {
        this.base = base;
    }

    static NodeAgents start(LocalCluster cluster, SupervisedSteps supervised, List<String> nodes) {
        NodeAgents all = new NodeAgents(supervised.plugstack().installDir());
        for (String node : nodes) {
            all.agents.put(node, all.startOn(cluster, node));
        }
        return all;
    }

    private LocalAgent startOn(LocalCluster cluster, String node) {
        return LocalAgent.start(cluster, base.resolve("agent-" + node), "--node", node);
    }

    /** Whether {@code node}'s agent still runs. */
    boolean alive(String node) {
        return agents.get(node).isAlive();
    }

    /** Every agent that died with its node starts again. */
    void restartKilled(LocalCluster cluster) throws InterruptedException {
        for (Map.Entry<String, LocalAgent> entry : agents.entrySet()) {
            if (!entry.getValue().isAlive()) {
                entry.getValue().removeAfterDeath();
                entry.setValue(startOn(cluster, entry.getKey()));
            }
        }
    }

    /** Null-safe for an {@code @AfterAll} after a failed {@code @BeforeAll}. */
    static void stop(NodeAgents agents) throws InterruptedException {
        if (agents == null) {
            return;
        }
        for (LocalAgent agent : agents.agents.values()) {
            if (agent.isAlive()) {
                agent.stop();
            } else {
                agent.removeAfterDeath();
            }
        }
    }
}
