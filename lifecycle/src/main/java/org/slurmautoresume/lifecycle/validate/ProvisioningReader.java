package org.slurmautoresume.lifecycle.validate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

    /** Keys apply writes itself on a NodeName line; node_options must not repeat them. */
    static final List<String> RESERVED_NODE_KEYS = List.of("NodeName", "NodeAddr", "NodeHostname", "Port", "Weight");

    private ProvisioningReader() {
    }

    static Optional<ProvisioningParameters> read(JsonNode root, Problems problems) {
        return Fields.object(root, "$", problems).map(fields -> read(fields, problems));
    }

    private static ProvisioningParameters read(Fields fields, Problems problems) {
        Optional<String> version = fields.requiredString("version",
                "add \"version\": \"" + ProvisioningParameters.SUPPORTED_VERSION + "\"");
        version.filter(v -> !v.equals(ProvisioningParameters.SUPPORTED_VERSION)).ifPresent(v -> problems.warning(
                fields.pathOf("version"), "version \"" + v + "\" is not the one this tool knows ("
                        + ProvisioningParameters.SUPPORTED_VERSION + ")",
                "use \"" + ProvisioningParameters.SUPPORTED_VERSION + "\", or check that the fields still mean the same"));
        Optional<String> manager = fields.requiredString("workload_manager", "add \"workload_manager\": \"slurm\"");
        manager.filter(m -> !m.equals(ProvisioningParameters.WORKLOAD_MANAGER)).ifPresent(m -> problems.error(
                fields.pathOf("workload_manager"), "workload manager \"" + m + "\" is not supported",
                "set it to \"slurm\""));
        Optional<String> controller = fields.requiredString("controller_group",
                "name the instance group whose instance runs slurmctld, e.g. \"controller_group\": \"controller-machine\"");
        Optional<String> login = fields.optionalString("login_group");
        List<WorkerGroup> workers = new ArrayList<>();
        List<Fields.Element> elements = fields.array("worker_groups", true,
                "add at least one worker group: [{\"instance_group_name\": ..., \"partition_name\": ...}]");
        for (Fields.Element element : elements) {
            workers.add(readWorker(element, problems));
        }
        Optional<String> fsxDns = fields.optionalString("fsx_dns_name");
        Optional<String> fsxMount = fields.optionalString("fsx_mountname");
        Optional<String> zfsDns = fields.optionalString("fsx_openzfs_dns_name");
        if (fsxDns.isPresent() != fsxMount.isPresent()) {
            String missing = fsxDns.isPresent() ? "fsx_mountname" : "fsx_dns_name";
            problems.error(fields.pathOf(missing), "FSx for Lustre needs both fsx_dns_name and fsx_mountname; only one is set",
                    "set " + missing + " too, or remove the other one");
        }
        fsxDns.filter(d -> !SlurmNames.isValidDnsName(d)).ifPresent(d -> problems.error(fields.pathOf("fsx_dns_name"),
                "\"" + d + "\" is not a DNS name", "use the file system's DNS name, e.g. fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com"));
        zfsDns.filter(d -> !SlurmNames.isValidDnsName(d)).ifPresent(d -> problems.error(fields.pathOf("fsx_openzfs_dns_name"),
                "\"" + d + "\" is not a DNS name", "use the file system's DNS name"));
        SiteOptions site = fields.optionalObject("autoresume").map(f -> readSite(f, problems)).orElse(null);
        fields.reportUnknown();

        ProvisioningParameters parameters = new ProvisioningParameters(version.orElse(null), manager.orElse(null),
                controller.orElse(null), login.orElse(null), workers, fsxDns.orElse(null), fsxMount.orElse(null),
                zfsDns.orElse(null), site);
        checkRoles(parameters, problems);
        return parameters;
    }

    private static WorkerGroup readWorker(Fields.Element element, Problems problems) {
        Optional<Fields> maybe = Fields.object(element.node(), element.path(), problems);
        if (maybe.isEmpty()) {
            return new WorkerGroup(null, null, null);
        }
        Fields fields = maybe.get();
        Optional<String> group = fields.requiredString("instance_group_name",
                "name the instance group (as in the cluster request) whose instances are this partition's nodes");
        Optional<String> partition = fields.requiredString("partition_name", "name the Slurm partition, e.g. \"dev\"");
        partition.filter(p -> !SlurmNames.isValidName(p)).ifPresent(p -> problems.error(fields.pathOf("partition_name"),
                "\"" + p + "\" is not a valid Slurm partition name",
                "use letters, digits, '_', '.' and '-' only (no blanks, commas or '=')"));
        WorkerOptions options = fields.optionalObject("autoresume").map(f -> readWorkerOptions(f, problems)).orElse(null);
        fields.reportUnknown();
        return new WorkerGroup(group.orElse(null), partition.orElse(null), options);
    }

    private static WorkerOptions readWorkerOptions(Fields fields, Problems problems) {
        int spares = fields.integer("spare_count", false, 0, "use 0 or more").orElse(0);
        Optional<String> nodeOptions = fields.optionalString("node_options");
        nodeOptions.ifPresent(text -> checkNodeOptions(text, fields.pathOf("node_options"), problems));
        fields.reportUnknown();
        return new WorkerOptions(spares, nodeOptions.orElse(null));
    }

    private static void checkNodeOptions(String text, String path, Problems problems) {
        for (String token : text.strip().split("\\s+")) {
            int eq = token.indexOf('=');
            if (eq <= 0 || eq == token.length() - 1) {
                problems.error(path, "\"" + token + "\" is not a Key=Value node parameter",
                        "write slurm.conf node parameters separated by blanks, e.g. \"CPUs=96 RealMemory=1900000\"");
                continue;
            }
            String key = token.substring(0, eq);
            RESERVED_NODE_KEYS.stream().filter(k -> k.equalsIgnoreCase(key)).findFirst().ifPresent(k -> problems.error(
                    path, key + "= is written by autoresume itself from resource_config.json",
                    "remove " + key + "= here (per-instance values go in Instances[i].Autoresume)"));
        }
    }

    private static SiteOptions readSite(Fields fields, Problems problems) {
        Optional<String> spare = fields.optionalString("spare_partition");
        spare.filter(p -> !SlurmNames.isValidName(p)).ifPresent(p -> problems.error(fields.pathOf("spare_partition"),
                "\"" + p + "\" is not a valid Slurm partition name", "use letters, digits, '_', '.' and '-' only"));
        Optional<Integer> interval = fields.integer("health_check_interval", false, 0,
                "use a number of seconds, or 0 for no health check");
        fields.reportUnknown();
        return new SiteOptions(spare.orElse(null), interval.orElse(null));
    }

    /** A group has one role: the same name as controller and worker, say, is a mistake. */
    private static void checkRoles(ProvisioningParameters parameters, Problems problems) {
        Map<String, String> roleOfGroup = new HashMap<>();
        if (parameters.controllerGroup() != null) {
            roleOfGroup.put(parameters.controllerGroup(), "$.controller_group");
        }
        parameters.login().ifPresent(login -> claim(roleOfGroup, login, "$.login_group", problems));
        Map<String, String> partitionOfGroup = new HashMap<>();
        for (int i = 0; i < parameters.workerGroups().size(); i++) {
            WorkerGroup worker = parameters.workerGroups().get(i);
            String path = "$.worker_groups[" + i + "].instance_group_name";
            if (worker.instanceGroupName() == null) {
                continue;
            }
            String earlier = partitionOfGroup.putIfAbsent(worker.instanceGroupName(), path);
            if (earlier != null) {
                problems.error(path, "duplicate worker group \"" + worker.instanceGroupName() + "\" (also " + earlier + ")",
                        "list each instance group once; to put one group in several partitions is not supported");
                continue;
            }
            claim(roleOfGroup, worker.instanceGroupName(), path, problems);
        }
        String spare = parameters.site().sparePartitionName();
        for (int i = 0; i < parameters.workerGroups().size(); i++) {
            if (spare.equals(parameters.workerGroups().get(i).partitionName())) {
                problems.error("$.worker_groups[" + i + "].partition_name", "partition \"" + spare
                        + "\" is also the spare partition's name", "rename the partition, or set autoresume.spare_partition");
            }
        }
    }

    private static void claim(Map<String, String> roleOfGroup, String group, String path, Problems problems) {
        String earlier = roleOfGroup.putIfAbsent(group, path);
        if (earlier != null) {
            problems.error(path, "instance group \"" + group + "\" already has a role (" + earlier + ")",
                    "give each role its own instance group: controller, login and workers cannot share one");
        }
    }
}
