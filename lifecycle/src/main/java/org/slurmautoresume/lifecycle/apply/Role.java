package org.slurmautoresume.lifecycle.apply;

/** What a node is in the Slurm cluster, from the group provisioning_parameters.json puts it in. */
public enum Role {
    /** Runs slurmctld (controller_group); also runs the stuck-node sweep. */
    CONTROLLER,
    /** Where users log in and submit (login_group): needs slurm.conf and the plugin only. */
    LOGIN,
    /** Runs slurmd and jobs (worker_groups): the plugin, the agent and the health check. */
    COMPUTE
}
