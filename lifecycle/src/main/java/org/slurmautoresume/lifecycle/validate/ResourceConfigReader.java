package org.slurmautoresume.lifecycle.validate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.configfile.ConfigFields;
import org.slurmautoresume.configfile.ConfigPath;
import org.slurmautoresume.configfile.Field;
import org.slurmautoresume.configfile.Problems;
import org.slurmautoresume.configfile.Quote;
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

    private static final ConfigPath ROOT = ConfigValidator.ROOT;

    private ResourceConfigReader() {}

    static Optional<ResourceConfig> read(JsonNode root, Problems problems) {
        return ConfigFields.of(root, problems.root(), problems).map(fields -> read(fields, problems));
    }

    private static ResourceConfig read(ConfigFields fields, Problems problems) {
        ClusterConfig cluster = fields.object("ClusterConfig")
                .map(f -> {
                    Optional<String> arn = f.field("ClusterArn").nonBlankText();
                    Optional<String> name = f.field("ClusterName").nonBlankText();
                    f.warnUnknown();
                    return new ClusterConfig(arn.orElse(null), name.orElse(null));
                })
                .orElse(null);
        List<InstanceGroup> groups = new ArrayList<>();
        for (Field element : fields.field("InstanceGroups")
                .required("list the cluster's instance groups:"
                        + " [{\"Name\": ..., \"InstanceType\": ..., \"Instances\": [...]}]")
                .list()) {
            groups.add(readGroup(element, problems));
        }
        fields.warnUnknown();
        ResourceConfig config = new ResourceConfig(cluster, groups);
        checkUnique(config, problems);
        return config;
    }

    private static InstanceGroup readGroup(Field element, Problems problems) {
        Optional<ConfigFields> maybe = ConfigFields.of(element.node(), element.path(), problems);
        if (maybe.isEmpty()) {
            return new InstanceGroup(null, null, List.of());
        }
        ConfigFields fields = maybe.get();
        Optional<String> name = fields.field("Name")
                .required("give the group's name, as InstanceGroupName in the cluster request")
                .text();
        Optional<String> type = fields.field("InstanceType").nonBlankText();
        List<Instance> instances = new ArrayList<>();
        for (Field instance : fields.list("Instances")) {
            instances.add(readInstance(instance, problems));
        }
        fields.warnUnknown();
        return new InstanceGroup(name.orElse(null), type.orElse(null), instances);
    }

    private static Instance readInstance(Field element, Problems problems) {
        Optional<ConfigFields> maybe = ConfigFields.of(element.node(), element.path(), problems);
        if (maybe.isEmpty()) {
            return new Instance(null, null, null, null, null);
        }
        ConfigFields fields = maybe.get();
        Optional<String> name = fields.field("InstanceName")
                .required("give the instance a name, e.g. \"compute-nodes-1\"")
                .text();
        Optional<String> id = fields.field("InstanceId").nonBlankText();
        Optional<String> customer = fields.field("CustomerIpAddress")
                .required("give the instance's address in the cluster network, where its Slurm daemons listen")
                .text();
        customer = checkAddress(customer, fields.pathOf("CustomerIpAddress"), problems);
        Optional<String> agent =
                checkAddress(fields.field("AgentIpAddress").nonBlankText(), fields.pathOf("AgentIpAddress"), problems);
        InstanceOptions options =
                fields.object("Autoresume").map(f -> readOptions(f, problems)).orElse(null);
        fields.warnUnknown();
        Instance instance =
                new Instance(name.orElse(null), id.orElse(null), customer.orElse(null), agent.orElse(null), options);
        if (options == null || options.nodeName() == null) {
            name.filter(n -> !SlurmNames.isValidName(n))
                    .ifPresent(n -> problems.error(
                            fields.pathOf("InstanceName"),
                            Quote.text(n) + " cannot be a Slurm node name",
                            "rename the instance, or set Autoresume.NodeName"));
        }
        return instance;
    }

    private static Optional<String> checkAddress(Optional<String> text, ConfigPath path, Problems problems) {
        if (text.isPresent() && IpAddress.parse(text.get()).isEmpty()) {
            problems.error(
                    path,
                    Quote.text(text.get()) + " is not an IPv4 or IPv6 address",
                    "write the address as digits (e.g. 10.1.2.3 or fd00::3); host names are not looked up");
            return Optional.empty();
        }
        return text;
    }

    private static InstanceOptions readOptions(ConfigFields fields, Problems problems) {
        Optional<String> nodeName = fields.field("NodeName").nonBlankText();
        nodeName.filter(n -> !SlurmNames.isValidName(n))
                .ifPresent(n -> problems.error(
                        fields.pathOf("NodeName"),
                        Quote.text(n) + " is not a valid Slurm node name",
                        "use letters, digits, '_', '.' and '-' only"));
        Optional<String> hostname = fields.field("NodeHostname").nonBlankText();
        hostname.filter(h -> !SlurmNames.isValidDnsName(h))
                .ifPresent(h -> problems.error(
                        fields.pathOf("NodeHostname"),
                        Quote.text(h) + " is not a host name",
                        "use the name `hostname -s` prints on that instance"));
        Optional<Integer> port =
                fields.field("Port").rangeFix("use the slurmd port, 1 to 65535").integer(1, 65535);
        fields.warnUnknown();
        return new InstanceOptions(nodeName.orElse(null), hostname.orElse(null), port.orElse(null));
    }

    /** Group names, instance names, node names, instance ids and address+port are each unique in a cluster. */
    private static void checkUnique(ResourceConfig config, Problems problems) {
        Map<String, ConfigPath> groups = new HashMap<>();
        Map<String, ConfigPath> instanceNames = new HashMap<>();
        Map<String, ConfigPath> nodeNames = new HashMap<>();
        Map<String, ConfigPath> ids = new HashMap<>();
        Map<String, ConfigPath> endpoints = new HashMap<>();
        for (int g = 0; g < config.instanceGroups().size(); g++) {
            InstanceGroup group = config.instanceGroups().get(g);
            ConfigPath groupPath = ROOT.field("InstanceGroups").index(g);
            unique(groups, group.name(), groupPath.field("Name"), "instance group name", problems);
            for (int i = 0; i < group.instances().size(); i++) {
                Instance instance = group.instances().get(i);
                ConfigPath path = groupPath.field("Instances").index(i);
                boolean nameUnique = unique(
                        instanceNames, instance.instanceName(), path.field("InstanceName"), "instance name", problems);
                if (instance.options().nodeName() != null) {
                    unique(
                            nodeNames,
                            instance.nodeName(),
                            path.field("Autoresume").field("NodeName"),
                            "Slurm node name",
                            problems);
                } else if (nameUnique) {
                    unique(nodeNames, instance.nodeName(), path.field("InstanceName"), "Slurm node name", problems);
                }
                unique(ids, instance.instanceId(), path.field("InstanceId"), "instance id", problems);
                IpAddress.canonical(instance.customerIpAddress()).ifPresent(address -> {
                    Integer port = instance.options().port();
                    unique(
                            endpoints,
                            port == null ? address : address + " port " + port,
                            path.field("CustomerIpAddress"),
                            "slurmd address" + (port == null ? "" : " and port"),
                            problems);
                });
            }
        }
    }

    /** False (after reporting it) when {@code value} was seen before. */
    private static boolean unique(
            Map<String, ConfigPath> seen, String value, ConfigPath path, String what, Problems problems) {
        if (value == null) {
            return true;
        }
        ConfigPath earlier = seen.putIfAbsent(value, path);
        if (earlier != null && !earlier.equals(path)) {
            String fix = what.startsWith("slurmd address")
                    ? "give each instance its own address, or its own Autoresume.Port when several share a host"
                    : "make each " + what + " unique";
            problems.error(path, "duplicate " + what + " " + Quote.text(value) + " (also at " + earlier + ")", fix);
            return false;
        }
        return true;
    }
}
