package org.slurmautoresume.lifecycle.apply;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.lifecycle.model.Instance;
import org.slurmautoresume.lifecycle.model.InstanceGroup;
import org.slurmautoresume.lifecycle.model.ProvisioningParameters;
import org.slurmautoresume.lifecycle.model.ResourceConfig;
import org.slurmautoresume.lifecycle.model.SiteOptions;
import org.slurmautoresume.lifecycle.model.WorkerGroup;

/**
 * The whole cluster as apply sees it: every node with its role, the worker partitions, and the
 * hot spares. Built from files that passed validation.
 */
public record ClusterPlan(
        List<PlannedNode> nodes, List<Partition> partitions, Partition sparePartition, SiteOptions site) {

    public ClusterPlan {
        nodes = List.copyOf(nodes);
        partitions = List.copyOf(partitions);
    }

    public static ClusterPlan of(ProvisioningParameters parameters, ResourceConfig config) {
        List<PlannedNode> nodes = new ArrayList<>();
        addGroup(nodes, config, parameters.controllerGroup(), Role.CONTROLLER, null);
        parameters.login().ifPresent(login -> addGroup(nodes, config, login, Role.LOGIN, null));
        Map<String, List<String>> partitionNodes = new LinkedHashMap<>();
        List<String> spares = new ArrayList<>();
        for (WorkerGroup worker : parameters.workerGroups()) {
            List<PlannedNode> added = addGroup(nodes, config, worker.instanceGroupName(), Role.COMPUTE, worker);
            List<String> names = partitionNodes.computeIfAbsent(worker.partitionName(), k -> new ArrayList<>());
            added.forEach(n -> names.add(n.nodeName()));
            added.stream().filter(PlannedNode::spare).forEach(n -> spares.add(n.nodeName()));
        }
        List<Partition> partitions = new ArrayList<>();
        partitionNodes.forEach((name, members) -> partitions.add(new Partition(name, members)));
        return new ClusterPlan(
                nodes, partitions, new Partition(parameters.site().sparePartitionName(), spares), parameters.site());
    }

    private static List<PlannedNode> addGroup(
            List<PlannedNode> nodes, ResourceConfig config, String groupName, Role role, WorkerGroup worker) {
        InstanceGroup group = config.group(groupName)
                .orElseThrow(() -> new ApplyException("instance group \"" + groupName
                        + "\" is not in resource_config.json (run `autoresume lifecycle validate`)"));
        List<PlannedNode> added = new ArrayList<>();
        int spareFrom = group.instances().size()
                - (worker == null ? 0 : worker.options().spareCount());
        for (int i = 0; i < group.instances().size(); i++) {
            Instance instance = group.instances().get(i);
            PlannedNode node = new PlannedNode(
                    instance.nodeName(),
                    instance.instanceName(),
                    groupName,
                    role,
                    instance.customerIpAddress(),
                    Optional.ofNullable(instance.agentIpAddress()),
                    Optional.ofNullable(instance.options().nodeHostname()),
                    Optional.ofNullable(instance.options().port()),
                    Optional.ofNullable(worker).map(WorkerGroup::partitionName),
                    worker != null && i >= spareFrom,
                    Optional.ofNullable(worker).map(w -> w.options().nodeOptions()));
            added.add(node);
        }
        nodes.addAll(added);
        return added;
    }

    public List<PlannedNode> withRole(Role role) {
        return nodes.stream().filter(n -> n.role() == role).toList();
    }

    public boolean hasSpares() {
        return !sparePartition.nodes().isEmpty();
    }
}
