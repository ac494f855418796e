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
import org.slurmautoresume.lifecycle.model.ProvisioningParameters;
import org.slurmautoresume.lifecycle.model.SiteOptions;
import org.slurmautoresume.lifecycle.model.SlurmNames;
import org.slurmautoresume.lifecycle.model.WorkerGroup;
import org.slurmautoresume.lifecycle.model.WorkerOptions;

/**
 * provisioning_parameters.json from a JSON tree, with every problem found inside the file. A
 * worker group that is not an object still takes its place in the list (all fields null), so list
 * positions stay the JSON array's indices for later checks.
 */
final class ProvisioningReader {

    private static final ConfigPath ROOT = ConfigValidator.ROOT;

    /** Keys apply writes itself on a NodeName line; node_options must not repeat them. */
    static final List<String> RESERVED_NODE_KEYS = List.of("NodeName", "NodeAddr", "NodeHostname", "Port", "Weight");

    private ProvisioningReader() {}

    static Optional<ProvisioningParameters> read(JsonNode root, Problems problems) {
        return ConfigFields.of(root, problems.root(), problems).map(fields -> read(fields, problems));
    }

    private static ProvisioningParameters read(ConfigFields fields, Problems problems) {
        Optional<String> version = fields.field("version")
                .required("add \"version\": " + Quote.text(ProvisioningParameters.SUPPORTED_VERSION))
                .text();
        version.filter(v -> !v.equals(ProvisioningParameters.SUPPORTED_VERSION))
                .ifPresent(v -> problems.warning(
                        fields.pathOf("version"),
                        "version " + Quote.text(v) + " is not the one this tool knows ("
                                + ProvisioningParameters.SUPPORTED_VERSION + ")",
                        "use " + Quote.text(ProvisioningParameters.SUPPORTED_VERSION)
                                + ", or check that the fields still mean the same"));
        Optional<String> manager = fields.field("workload_manager")
                .required("add \"workload_manager\": \"slurm\"")
                .text();
        manager.filter(m -> !m.equals(ProvisioningParameters.WORKLOAD_MANAGER))
                .ifPresent(m -> problems.error(
                        fields.pathOf("workload_manager"),
                        "workload manager " + Quote.text(m) + " is not supported",
                        "set it to \"slurm\""));
        Optional<String> controller = fields.field("controller_group")
                .required("name the instance group whose instance runs slurmctld,"
                        + " e.g. \"controller_group\": \"controller-machine\"")
                .text();
        Optional<String> login = fields.field("login_group").nonBlankText();
        List<WorkerGroup> workers = new ArrayList<>();
        List<Field> elements = fields.field("worker_groups")
                .required("add at least one worker group: [{\"instance_group_name\": ..., \"partition_name\": ...}]")
                .list();
        for (Field element : elements) {
            workers.add(readWorker(element, problems));
        }
        Optional<String> fsxDns = fields.field("fsx_dns_name").nonBlankText();
        Optional<String> fsxMount = fields.field("fsx_mountname").nonBlankText();
        Optional<String> zfsDns = fields.field("fsx_openzfs_dns_name").nonBlankText();
        if (fsxDns.isPresent() != fsxMount.isPresent()) {
            String missing = fsxDns.isPresent() ? "fsx_mountname" : "fsx_dns_name";
            problems.error(
                    fields.pathOf(missing),
                    "FSx for Lustre needs both fsx_dns_name and fsx_mountname; only one is set",
                    "set " + missing + " too, or remove the other one");
        }
        fsxDns.filter(d -> !SlurmNames.isValidDnsName(d))
                .ifPresent(d -> problems.error(
                        fields.pathOf("fsx_dns_name"),
                        Quote.text(d) + " is not a DNS name",
                        "use the file system's DNS name, e.g. fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com"));
        zfsDns.filter(d -> !SlurmNames.isValidDnsName(d))
                .ifPresent(d -> problems.error(
                        fields.pathOf("fsx_openzfs_dns_name"),
                        Quote.text(d) + " is not a DNS name",
                        "use the file system's DNS name"));
        SiteOptions site =
                fields.object("autoresume").map(f -> readSite(f, problems)).orElse(null);
        fields.warnUnknown();

        ProvisioningParameters parameters = new ProvisioningParameters(
                version.orElse(null),
                manager.orElse(null),
                controller.orElse(null),
                login.orElse(null),
                workers,
                fsxDns.orElse(null),
                fsxMount.orElse(null),
                zfsDns.orElse(null),
                site);
        checkRoles(parameters, problems);
        return parameters;
    }

    private static WorkerGroup readWorker(Field element, Problems problems) {
        Optional<ConfigFields> maybe = ConfigFields.of(element.node(), element.path(), problems);
        if (maybe.isEmpty()) {
            return new WorkerGroup(null, null, null);
        }
        ConfigFields fields = maybe.get();
        Optional<String> group = fields.field("instance_group_name")
                .required("name the instance group (as in the cluster request) whose instances are"
                        + " this partition's nodes")
                .text();
        Optional<String> partition = fields.field("partition_name")
                .required("name the Slurm partition, e.g. \"dev\"")
                .text();
        partition
                .filter(p -> !SlurmNames.isValidName(p))
                .ifPresent(p -> problems.error(
                        fields.pathOf("partition_name"),
                        Quote.text(p) + " is not a valid Slurm partition name",
                        "use letters, digits, '_', '.' and '-' only (no blanks, commas or '=')"));
        WorkerOptions options = fields.object("autoresume")
                .map(f -> readWorkerOptions(f, problems))
                .orElse(null);
        fields.warnUnknown();
        return new WorkerGroup(group.orElse(null), partition.orElse(null), options);
    }

    private static WorkerOptions readWorkerOptions(ConfigFields fields, Problems problems) {
        int spares = fields.field("spare_count")
                .rangeFix("use 0 or more")
                .integer(0, Integer.MAX_VALUE)
                .orElse(0);
        Optional<String> nodeOptions = fields.field("node_options").nonBlankText();
        nodeOptions.ifPresent(text -> checkNodeOptions(text, fields.pathOf("node_options"), problems));
        fields.warnUnknown();
        return new WorkerOptions(spares, nodeOptions.orElse(null));
    }

    private static void checkNodeOptions(String text, ConfigPath path, Problems problems) {
        for (String token : text.strip().split("\\s+")) {
            int eq = token.indexOf('=');
            if (eq <= 0 || eq == token.length() - 1) {
                problems.error(
                        path,
                        Quote.text(token) + " is not a Key=Value node parameter",
                        "write slurm.conf node parameters separated by blanks, e.g. \"CPUs=96 RealMemory=1900000\"");
                continue;
            }
            String key = token.substring(0, eq);
            RESERVED_NODE_KEYS.stream()
                    .filter(k -> k.equalsIgnoreCase(key))
                    .findFirst()
                    .ifPresent(k -> problems.error(
                            path,
                            key + "= is written by autoresume itself from resource_config.json",
                            "remove " + key + "= here (per-instance values go in Instances[i].Autoresume)"));
        }
    }

    private static SiteOptions readSite(ConfigFields fields, Problems problems) {
        Optional<String> spare = fields.field("spare_partition").nonBlankText();
        spare.filter(p -> !SlurmNames.isValidName(p))
                .ifPresent(p -> problems.error(
                        fields.pathOf("spare_partition"),
                        Quote.text(p) + " is not a valid Slurm partition name",
                        "use letters, digits, '_', '.' and '-' only"));
        Optional<Integer> interval = fields.field("health_check_interval")
                .rangeFix("use a number of seconds, or 0 for no health check")
                .integer(0, Integer.MAX_VALUE);
        fields.warnUnknown();
        return new SiteOptions(spare.orElse(null), interval.orElse(null));
    }

    /** A group has one role: the same name as controller and worker, say, is a mistake. */
    private static void checkRoles(ProvisioningParameters parameters, Problems problems) {
        Map<String, ConfigPath> roleOfGroup = new HashMap<>();
        if (parameters.controllerGroup() != null) {
            roleOfGroup.put(parameters.controllerGroup(), ROOT.field("controller_group"));
        }
        parameters.login().ifPresent(login -> claim(roleOfGroup, login, ROOT.field("login_group"), problems));
        Map<String, ConfigPath> partitionOfGroup = new HashMap<>();
        for (int i = 0; i < parameters.workerGroups().size(); i++) {
            WorkerGroup worker = parameters.workerGroups().get(i);
            ConfigPath path = ROOT.field("worker_groups").index(i).field("instance_group_name");
            if (worker.instanceGroupName() == null) {
                continue;
            }
            ConfigPath earlier = partitionOfGroup.putIfAbsent(worker.instanceGroupName(), path);
            if (earlier != null) {
                problems.error(
                        path,
                        "duplicate worker group " + Quote.text(worker.instanceGroupName()) + " (also " + earlier + ")",
                        "list each instance group once; to put one group in several partitions is not supported");
                continue;
            }
            claim(roleOfGroup, worker.instanceGroupName(), path, problems);
        }
        String spare = parameters.site().sparePartitionName();
        for (int i = 0; i < parameters.workerGroups().size(); i++) {
            if (spare.equals(parameters.workerGroups().get(i).partitionName())) {
                problems.error(
                        ROOT.field("worker_groups").index(i).field("partition_name"),
                        "partition " + Quote.text(spare) + " is also the spare partition's name",
                        "rename the partition, or set autoresume.spare_partition");
            }
        }
    }

    private static void claim(Map<String, ConfigPath> roleOfGroup, String group, ConfigPath path, Problems problems) {
        ConfigPath earlier = roleOfGroup.putIfAbsent(group, path);
        if (earlier != null) {
            problems.error(
                    path,
                    "instance group " + Quote.text(group) + " already has a role (" + earlier + ")",
                    "give each role its own instance group: controller, login and workers cannot share one");
        }
    }
}
