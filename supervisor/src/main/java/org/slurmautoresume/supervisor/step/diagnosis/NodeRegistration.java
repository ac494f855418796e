package org.slurmautoresume.supervisor.step.diagnosis;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Node;

/**
 * A restarted slurmctld keeps only DOWN/DRAIN/FAIL of its saved node states: every other node is
 * UNKNOWN until its slurmd registers again (seconds on the local cluster). Until then the node is
 * outside slurmctld's up-node set, and a step that names it is refused with the misleading
 * "Memory required by task is not available" (22.05 to 24.11, stepmgr {@code _pick_step_nodes};
 * docs/slurm-behaviour.md, "After a slurmctld restart: steps and memory"). srun gives up on that
 * refusal at once, so the supervisor waits for the registration and starts the same srun again.
 */
public final class NodeRegistration {

    /** Past the 100 s in which slurmctld pings every node at the latest (SlurmdTimeout/3, capped). */
    public static final Duration WAIT = Duration.ofSeconds(150);

    private static final Duration EVERY = Duration.ofMillis(500);
    static final String REFUSAL = "Memory required by task is not available";

    private NodeRegistration() {}

    /** srun's own line refusing the step as a just-restarted slurmctld does (the tasks' output is the user's). */
    static boolean isRefusal(String line) {
        String text = line.strip();
        return text.startsWith("srun: error: Unable to create step") && text.contains(REFUSAL);
    }

    /**
     * A slurmctld up for less than this when srun refused a step as {@link #REFUSAL}: its nodes
     * were still registering, whatever they show by the time the supervisor looks. Nodes register
     * within seconds of a restart; a minute covers a loaded controller.
     */
    static final java.time.Duration JUST_RESTARTED = java.time.Duration.ofSeconds(60);

    /**
     * Nodes of the step slurmctld has not heard from since it started: UNKNOWN, and not (yet)
     * marked not responding, which would make them a node fault instead.
     */
    static List<String> unregistered(List<Node> nodes, List<String> stepHosts) {
        Set<String> hosts = Set.copyOf(stepHosts);
        return nodes.stream()
                .filter(node -> hosts.contains(node.name()) && waitingFor(node))
                .map(Node::name)
                .toList();
    }

    private static boolean waitingFor(Node node) {
        return node.state().has("UNKNOWN") && !node.state().isUnhealthy();
    }

    /**
     * Waits until none of {@code names} is still unregistered, at most {@code within}; false if
     * they were still waiting then or Slurm could not be read (the next attempt then shows what
     * is wrong).
     */
    public static boolean await(SlurmClient slurm, List<String> names, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        String hostlist = Hostlist.compress(names);
        while (true) {
            try {
                if (unregistered(slurm.nodes(hostlist), names).isEmpty()) {
                    return true;
                }
            } catch (SlurmException e) {
                return false;
            }
            if (System.nanoTime() >= deadline) {
                return false;
            }
            Thread.sleep(EVERY.toMillis());
        }
    }
}
