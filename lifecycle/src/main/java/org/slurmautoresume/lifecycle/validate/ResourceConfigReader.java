package org.slurmautoresume.lifecycle.validate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.lifecycle.model.ClusterConfig;
import org.slurmautoresume.lifecycle.model.Instance;
import org.slurmautoresume.lifecycle.model.InstanceGroup;
import org.slurmautoresume.lifecycle.model.InstanceOptions;
import org.slurmautoresume.lifecycle.model.IpAddress;
import org.slurmautoresume.lifecycle.model.ResourceConfig;
import org.slurmautoresume.lifecycle.model.SlurmNames;

/**
 * resource_config.json from a JSON tree, with every problem inside the file: names, addresses and
 * duplicates across the whole cluster. Elements that are not objects keep their list position.
 */
final class ResourceConfigReader {

    private ResourceConfigReader() {
    }

    static Optional<ResourceConfig> read(JsonNode root, Problems problems) {
        return Fields.object(root, "$", problems).map(fields -> read(fields, problems));
    }

    private static ResourceConfig read(Fields fields, Problems problems) {
        ClusterConfig cluster = fields.optionalObject("ClusterConfig").map(f -> {
            Optional<String> arn = f.optionalString("ClusterArn");
            Optional<String> name = f.optionalString("ClusterName");
            f.reportUnknown();
            return new ClusterConfig(arn.orElse(null), name.orElse(null));
        }).orElse(null);
        List<InstanceGroup> groups = new ArrayList<>();
        for (Fields.Element element : fields.array("InstanceGroups", true,
                "list the cluster's instance groups: [{\"Name\": ..., \"InstanceType\": ..., \"Instances\": [...]}]")) {
            groups.add(readGroup(element, problems));
        }
        fields.reportUnknown();
        ResourceConfig config = new ResourceConfig(cluster, groups);
        checkUnique(config, problems);
        return config;
    }

    private static InstanceGroup readGroup(Fields.Element element, Problems problems) {
        Optional<Fields> maybe = Fields.object(element.node(), element.path(), problems);
        if (maybe.isEmpty()) {
            return new InstanceGroup(null, null, List.of());
        }
        Fields fields = maybe.get();
        Optional<String> name = fields.requiredString("Name", "give the group's name, as InstanceGroupName in the cluster request");
        Optional<String> type = fields.optionalString("InstanceType");
        List<Instance> instances = new ArrayList<>();
        for (Fields.Element instance : fields.array("Instances", false, "")) {
            instances.add(readInstance(instance, problems));
        }
        fields.reportUnknown();
        return new InstanceGroup(name.orElse(null), type.orElse(null), instances);
    }

    private static Instance readInstance(Fields.Element element, Problems problems) {
        Optional<Fields> maybe = Fields.object(element.node(), element.path(), problems);
        if (maybe.isEmpty()) {
            return new Instance(null, null, null, null, null);
        }
        Fields fields = maybe.get();
        Optional<String> name = fields.requiredString("InstanceName", "give the instance a name, e.g. \"compute-nodes-1\"");
        Optional<String> id = fields.optionalString("InstanceId");
        Optional<String> customer = fields.requiredString("CustomerIpAddress",
                "give the instance's address in the cluster network, where its Slurm daemons listen");
        customer = checkAddress(customer, fields.pathOf("CustomerIpAddress"), problems);
        Optional<String> agent = checkAddress(fields.optionalString("AgentIpAddress"), fields.pathOf("AgentIpAddress"), problems);
        InstanceOptions options = fields.optionalObject("Autoresume").map(f -> readOptions(f, problems)).orElse(null);
        fields.reportUnknown();
        Instance instance = new Instance(name.orElse(null), id.orElse(null), customer.orElse(null), agent.orElse(null), options);
        if (options == null || options.nodeName() == null) {
            name.filter(n -> !SlurmNames.isValidName(n)).ifPresent(n -> problems.error(fields.pathOf("InstanceName"),
                    "\"" + n + "\" cannot be a Slurm node name", "rename the instance, or set Autoresume.NodeName"));
        }
        return instance;
    }

    private static Optional<String> checkAddress(Optional<String> text, String path, Problems problems) {
        if (text.isPresent() && IpAddress.parse(text.get()).isEmpty()) {
            problems.error(path, "\"" + text.get() + "\" is not an IPv4 or IPv6 address",
                    "write the address as digits (e.g. 10.1.2.3 or fd00::3); host names are not looked up");
            return Optional.empty();
        }
        return text;
    }

    private static InstanceOptions readOptions(Fields fields, Problems problems) {
        Optional<String> nodeName = fields.optionalString("NodeName");
        nodeName.filter(n -> !SlurmNames.isValidName(n)).ifPresent(n -> problems.error(fields.pathOf("NodeName"),
                "\"" + n + "\" is not a valid Slurm node name", "use letters, digits, '_', '.' and '-' only"));
        Optional<String> hostname = fields.optionalString("NodeHostname");
        hostname.filter(h -> !SlurmNames.isValidDnsName(h)).ifPresent(h -> problems.error(fields.pathOf("NodeHostname"),
                "\"" + h + "\" is not a host name", "use the name `hostname -s` prints on that instance"));
        Optional<Integer> port = fields.integer("Port", false, 1, "use the slurmd port, 1 to 65535");
        port.filter(p -> p > 65535).ifPresent(p -> problems.error(fields.pathOf("Port"),
                "port " + p + " is above 65535", "use the slurmd port, 1 to 65535"));
        fields.reportUnknown();
        return new InstanceOptions(nodeName.orElse(null), hostname.orElse(null), port.orElse(null));
    }

    /** Group names, instance names, node names, instance ids and address+port are each unique in a cluster. */
    private static void checkUnique(ResourceConfig config, Problems problems) {
        Map<String, String> groups = new HashMap<>();
        Map<String, String> instanceNames = new HashMap<>();
        Map<String, String> nodeNames = new HashMap<>();
        Map<String, String> ids = new HashMap<>();
        Map<String, String> endpoints = new HashMap<>();
        for (int g = 0; g < config.instanceGroups().size(); g++) {
            InstanceGroup group = config.instanceGroups().get(g);
            String groupPath = "$.InstanceGroups[" + g + "]";
            unique(groups, group.name(), groupPath + ".Name", "instance group name", problems);
            for (int i = 0; i < group.instances().size(); i++) {
                Instance instance = group.instances().get(i);
                String path = groupPath + ".Instances[" + i + "]";
                boolean nameUnique = unique(instanceNames, instance.instanceName(), path + ".InstanceName",
                        "instance name", problems);
                if (instance.options().nodeName() != null) {
                    unique(nodeNames, instance.nodeName(), path + ".Autoresume.NodeName", "Slurm node name", problems);
                } else if (nameUnique) {
                    unique(nodeNames, instance.nodeName(), path + ".InstanceName", "Slurm node name", problems);
                }
                unique(ids, instance.instanceId(), path + ".InstanceId", "instance id", problems);
                IpAddress.canonical(instance.customerIpAddress()).ifPresent(address -> {
                    Integer port = instance.options().port();
                    unique(endpoints, port == null ? address : address + " port " + port, path + ".CustomerIpAddress",
                            "slurmd address" + (port == null ? "" : " and port"), problems);
                });
            }
        }
    }

    /** False (after reporting it) when {@code value} was seen before. */
    private static boolean unique(Map<String, String> seen, String value, String path, String what, Problems problems) {
        if (value == null) {
            return true;
        }
        String earlier = seen.putIfAbsent(value, path);
        if (earlier != null && !earlier.equals(path)) {
            String fix = what.startsWith("slurmd address")
                    ? "give each instance its own address, or its own Autoresume.Port when several share a host"
                    : "make each " + what + " unique";
            problems.error(path, "duplicate " + what + " \"" + value + "\" (also at " + earlier + ")", fix);
            return false;
        }
        return true;
    }
}
