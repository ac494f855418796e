package org.slurmautoresume.lifecycle.validate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slurmautoresume.configfile.ConfigPath;
import org.slurmautoresume.configfile.Problems;
import org.slurmautoresume.configfile.Quote;
import org.slurmautoresume.lifecycle.model.ClusterRequest;
import org.slurmautoresume.lifecycle.model.InstanceGroup;
import org.slurmautoresume.lifecycle.model.ProvisioningParameters;
import org.slurmautoresume.lifecycle.model.RequestedInstanceGroup;
import org.slurmautoresume.lifecycle.model.ResourceConfig;
import org.slurmautoresume.lifecycle.model.WorkerGroup;

/** The checks between files: every group named in one must exist, with a fitting size, in the others. */
final class CrossChecks {

    private static final ConfigPath ROOT = ConfigValidator.ROOT;

    private final Problems provisioning;
    private final Optional<Problems> resources;
    private final Optional<Problems> request;

    CrossChecks(Problems provisioning, Optional<Problems> resources, Optional<Problems> request) {
        this.provisioning = provisioning;
        this.resources = resources;
        this.request = request;
    }

    void provisioningAgainstResources(ProvisioningParameters parameters, ResourceConfig config) {
        Set<String> known = config.instanceGroups().stream()
                .map(InstanceGroup::name)
                .filter(Objects::nonNull)
                .collect(Collectors.toCollection(java.util.LinkedHashSet::new));
        String file = resources.orElseThrow().file();
        Map<ConfigPath, String> roles = roles(parameters);
        roles.forEach((path, group) -> {
            if (!known.contains(group)) {
                provisioning.error(
                        path,
                        "instance group " + Quote.text(group) + " is not in " + file + " (its groups: "
                                + String.join(", ", known) + ")",
                        "use one of the group names there, or add the group to the cluster");
            }
        });
        if (parameters.controllerGroup() != null) {
            config.group(parameters.controllerGroup())
                    .filter(g -> g.instances().isEmpty())
                    .ifPresent(g -> provisioning.error(
                            ROOT.field("controller_group"),
                            "the controller group " + Quote.text(g.name()) + " has no instances in " + file
                                    + ": the cluster has no slurmctld host",
                            "give the controller group one instance (InstanceCount 1)"));
        }
        for (int i = 0; i < parameters.workerGroups().size(); i++) {
            WorkerGroup worker = parameters.workerGroups().get(i);
            Optional<InstanceGroup> group =
                    Optional.ofNullable(worker.instanceGroupName()).flatMap(config::group);
            if (group.isEmpty()) {
                continue;
            }
            int size = group.get().instances().size();
            ConfigPath path = ROOT.field("worker_groups").index(i);
            if (size == 0) {
                provisioning.warning(
                        path.field("instance_group_name"),
                        "worker group "
                                + Quote.text(worker.instanceGroupName())
                                + " has no instances: partition " + worker.partitionName() + " gets no nodes from it",
                        "check InstanceCount in the cluster request");
            }
            int spares = worker.options().spareCount();
            if (spares > 0 && spares >= size) {
                provisioning.error(
                        path.field("autoresume").field("spare_count"),
                        "spare_count " + spares
                                + " leaves no working node of "
                                + size + " in group " + Quote.text(worker.instanceGroupName()),
                        "use fewer spares than instances");
            }
            if (worker.options().nodeOptions() == null) {
                provisioning.warning(
                        path,
                        "no autoresume.node_options: the NodeName lines say nothing of CPUs or"
                                + " memory, so Slurm assumes 1 CPU per node",
                        "add \"autoresume\": {\"node_options\": \"...\"} with what `slurmd -C` prints on one instance");
            }
        }
        Set<String> used = Set.copyOf(roles.values());
        List<InstanceGroup> groups = config.instanceGroups();
        for (int g = 0; g < groups.size(); g++) {
            String name = groups.get(g).name();
            if (name != null && !used.contains(name)) {
                resources
                        .get()
                        .warning(
                                ROOT.field("InstanceGroups").index(g).field("Name"),
                                "instance group "
                                        + Quote.text(name)
                                        + " has no Slurm role in " + provisioning.file()
                                        + ": its instances join no partition",
                                "add it to worker_groups (or make it the login_group), or leave it out of the cluster");
            }
        }
    }

    void provisioningAgainstRequest(ProvisioningParameters parameters, ClusterRequest clusterRequest) {
        Set<String> requested = requestedNames(clusterRequest);
        String file = request.orElseThrow().file();
        roles(parameters).forEach((path, group) -> {
            if (!requested.contains(group)) {
                provisioning.error(
                        path,
                        "instance group " + Quote.text(group) + " is not in the cluster request "
                                + file
                                + " (its groups: " + String.join(", ", requested) + ")",
                        "add an InstanceGroups entry named " + Quote.text(group)
                                + " to the request, or fix the name here");
            }
        });
    }

    void resourcesAgainstRequest(ResourceConfig config, ClusterRequest clusterRequest) {
        Problems inResources = resources.orElseThrow();
        Problems inRequest = request.orElseThrow();
        Map<String, RequestedInstanceGroup> requested = new LinkedHashMap<>();
        clusterRequest.instanceGroups().stream()
                .filter(g -> g.instanceGroupName() != null)
                .forEach(g -> requested.putIfAbsent(g.instanceGroupName(), g));
        for (int g = 0; g < config.instanceGroups().size(); g++) {
            InstanceGroup group = config.instanceGroups().get(g);
            ConfigPath path = ROOT.field("InstanceGroups").index(g);
            if (group.name() == null) {
                continue;
            }
            RequestedInstanceGroup asked = requested.get(group.name());
            if (asked == null) {
                inResources.error(
                        path.field("Name"),
                        "instance group " + Quote.text(group.name())
                                + " is not in the cluster request "
                                + inRequest.file(),
                        "add it to the request's InstanceGroups, or fix the name");
                continue;
            }
            if (asked.instanceCount() != null
                    && asked.instanceCount() != group.instances().size()) {
                inResources.error(
                        path.field("Instances"),
                        "group " + Quote.text(group.name()) + " has "
                                + group.instances().size()
                                + " instances but the request asks for InstanceCount " + asked.instanceCount(),
                        "make InstanceCount and the instances listed agree (a partly provisioned cluster?)");
            }
            if (asked.instanceType() != null
                    && group.instanceType() != null
                    && !asked.instanceType().equals(group.instanceType())) {
                inResources.error(
                        path.field("InstanceType"),
                        "group " + Quote.text(group.name()) + " is "
                                + group.instanceType()
                                + " but the request asks for " + asked.instanceType(),
                        "make the instance types agree");
            }
        }
        Set<String> present = config.instanceGroups().stream()
                .map(InstanceGroup::name)
                .filter(Objects::nonNull)
                .collect(Collectors.toSet());
        for (int g = 0; g < clusterRequest.instanceGroups().size(); g++) {
            String name = clusterRequest.instanceGroups().get(g).instanceGroupName();
            if (name != null && !present.contains(name)) {
                inRequest.warning(
                        ROOT.field("InstanceGroups").index(g).field("InstanceGroupName"),
                        "instance group " + Quote.text(name) + " is requested but absent from " + inResources.file(),
                        "check that the cluster finished creating");
            }
        }
        String requestedName = clusterRequest.clusterName();
        String actualName =
                config.clusterConfig() == null ? null : config.clusterConfig().clusterName();
        if (requestedName != null && actualName != null && !requestedName.equals(actualName)) {
            inResources.warning(
                    ROOT.field("ClusterConfig").field("ClusterName"),
                    "cluster " + Quote.text(actualName) + " is not the requested \"" + requestedName + "\"",
                    "check that both files describe the same cluster");
        }
    }

    /** JSON path in provisioning_parameters.json -> the instance group it names. */
    private static Map<ConfigPath, String> roles(ProvisioningParameters parameters) {
        Map<ConfigPath, String> roles = new LinkedHashMap<>();
        if (parameters.controllerGroup() != null) {
            roles.put(ROOT.field("controller_group"), parameters.controllerGroup());
        }
        parameters.login().ifPresent(login -> roles.put(ROOT.field("login_group"), login));
        for (int i = 0; i < parameters.workerGroups().size(); i++) {
            String name = parameters.workerGroups().get(i).instanceGroupName();
            if (name != null) {
                roles.put(ROOT.field("worker_groups").index(i).field("instance_group_name"), name);
            }
        }
        return roles;
    }

    private static Set<String> requestedNames(ClusterRequest clusterRequest) {
        return clusterRequest.instanceGroups().stream()
                .map(RequestedInstanceGroup::instanceGroupName)
                .filter(Objects::nonNull)
                .collect(Collectors.toCollection(java.util.LinkedHashSet::new));
    }
}
