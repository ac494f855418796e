package org.slurmautoresume.supervisor.step.settings;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The nodes the first attempt's NODE_LIST, MASTER_NODE and NNODES describe, known before srun
 * starts from the environment the allocation gave the batch script: re-runs read them from
 * {@code scontrol show job} after a repair, but the first srun is launched before the job is
 * read (start-up speed), and its environment already says which nodes the job holds.
 *
 * <p>The same nodes, in the same order, a re-run would be given without a fault: with in-job
 * spares the step's own nodes ({@link org.slurmautoresume.supervisor.step.restart.InJobSpares#stepNodes()}), else the job's nodes in
 * Slurm's order, the first being the master. A step the user places on a subset (-w, -x, -r,
 * fewer tasks than nodes) is told the job's nodes, as its re-runs are.
 *
 * @param nodeList Slurm's compressed form, as NODE_LIST carries it
 * @param hosts    the nodes in order; the first is MASTER_NODE
 */
public record FirstAttemptNodes(String nodeList, List<String> hosts) {

    public FirstAttemptNodes {
        hosts = List.copyOf(hosts);
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("no nodes");
        }
    }

    public String master() {
        return hosts.get(0);
    }

    /**
     * NODE_LIST, MASTER_NODE, NNODES and, when known, MASTER_ADDR: the names and meanings
     * {@link org.slurmautoresume.slurm.env.JobEnvironment#variables()} gives re-runs.
     */
    public Map<String, String> variables(Optional<String> masterAddr) {
        Map<String, String> vars = new java.util.LinkedHashMap<>();
        vars.put("NODE_LIST", nodeList);
        vars.put("MASTER_NODE", master());
        masterAddr.ifPresent(addr -> vars.put("MASTER_ADDR", addr));
        vars.put("NNODES", Integer.toString(hosts.size()));
        return vars;
    }
}
