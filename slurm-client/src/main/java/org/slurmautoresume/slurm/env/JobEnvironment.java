package org.slurmautoresume.slurm.env;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a training script needs to know about its job's nodes now, resolved from the
 * controller rather than from the environment srun was started with (which goes stale when
 * the job shrinks or grows).
 */
public record JobEnvironment(String jobId, String nodeList, List<String> hosts, String masterNode, String masterAddr) {

    public JobEnvironment {
        hosts = List.copyOf(hosts);
    }

    public int numNodes() {
        return hosts.size();
    }

    /** NODE_LIST, MASTER_NODE, MASTER_ADDR and NNODES, the names HyperPod users' scripts use. */
    public Map<String, String> variables() {
        Map<String, String> vars = new LinkedHashMap<>();
        vars.put("NODE_LIST", nodeList);
        vars.put("MASTER_NODE", masterNode);
        vars.put("MASTER_ADDR", masterAddr);
        vars.put("NNODES", Integer.toString(numNodes()));
        return vars;
    }

    /**
     * Slurm's own size variables, updated to the job's current size: a later srun in a job that
     * shrank fails with "SLURM_JOB_NUM_NODES ... conflicts with allocated node count" otherwise.
     */
    public Map<String, String> slurmVariables() {
        Map<String, String> vars = new LinkedHashMap<>();
        vars.put("SLURM_JOB_NODELIST", nodeList);
        vars.put("SLURM_NODELIST", nodeList);
        vars.put("SLURM_JOB_NUM_NODES", Integer.toString(numNodes()));
        vars.put("SLURM_NNODES", Integer.toString(numNodes()));
        return vars;
    }
}
