package org.slurmautoresume.lifecycle.apply;

import java.util.Objects;
import java.util.Optional;

/**
 * One instance as the cluster will know it.
 *
 * @param partition   the worker partition (empty for controller and login)
 * @param nodeOptions extra slurm.conf node parameters (empty for none)
 */
public record PlannedNode(
        String nodeName,
        String instanceName,
        String group,
        Role role,
        String address,
        Optional<String> agentAddress,
        Optional<String> hostname,
        Optional<Integer> port,
        Optional<String> partition,
        boolean spare,
        Optional<String> nodeOptions) {

    public PlannedNode {
        Objects.requireNonNull(nodeName);
        Objects.requireNonNull(instanceName);
        Objects.requireNonNull(group);
        Objects.requireNonNull(role);
        Objects.requireNonNull(address);
    }
}
