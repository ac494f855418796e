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
import org.slurmautoresume.lifecycle.model.ClusterRequest;
import org.slurmautoresume.lifecycle.model.LifeCycleConfig;
import org.slurmautoresume.lifecycle.model.RequestedInstanceGroup;

/** The cluster-creation request ({@code create_cluster.json}): its instance groups and lifecycle config. */
final class ClusterRequestReader {

    /** Request fields this tool does not check but that are part of the API, so no "unknown field" warning. */
    private static final List<String> OTHER_REQUEST_FIELDS = List.of(
            "VpcConfig",
            "Tags",
            "Orchestrator",
            "NodeRecovery",
            "NodeProvisioningMode",
            "ClusterRole",
            "RestrictedInstanceGroups",
            "TieredStorageConfig",
            "AutoScaling");

    private static final List<String> OTHER_GROUP_FIELDS = List.of(
            "InstanceStorageConfigs",
            "OnStartDeepHealthChecks",
            "TrainingPlanArn",
            "OverrideVpcConfig",
            "ScheduledUpdateConfig",
            "ImageId",
            "KubernetesConfig");

    private ClusterRequestReader() {}

    static Optional<ClusterRequest> read(JsonNode root, Problems problems) {
        return ConfigFields.of(root, problems.root(), problems).map(fields -> read(fields, problems));
    }

    private static ClusterRequest read(ConfigFields fields, Problems problems) {
        Optional<String> name = fields.field("ClusterName").nonBlankText();
        List<RequestedInstanceGroup> groups = new ArrayList<>();
        Map<String, ConfigPath> seen = new HashMap<>();
        for (Field element : fields.field("InstanceGroups")
                .required("list the instance groups to create:"
                        + " [{\"InstanceGroupName\": ..., \"InstanceType\": ..., \"InstanceCount\": ...,"
                        + " \"LifeCycleConfig\": {...}}]")
                .list()) {
            RequestedInstanceGroup group = readGroup(element, problems);
            groups.add(group);
            if (group.instanceGroupName() != null) {
                ConfigPath earlier = seen.putIfAbsent(group.instanceGroupName(), element.path());
                if (earlier != null) {
                    problems.error(
                            element.path().field("InstanceGroupName"),
                            "duplicate instance group name " + Quote.text(group.instanceGroupName()) + " (also at "
                                    + earlier + ")",
                            "give each instance group a unique name");
                }
            }
        }
        fields.accept(OTHER_REQUEST_FIELDS);
        fields.warnUnknown();
        return new ClusterRequest(name.orElse(null), groups);
    }

    private static RequestedInstanceGroup readGroup(Field element, Problems problems) {
        Optional<ConfigFields> maybe = ConfigFields.of(element.node(), element.path(), problems);
        if (maybe.isEmpty()) {
            return new RequestedInstanceGroup(null, null, null, null, null, null);
        }
        ConfigFields fields = maybe.get();
        Optional<String> name = fields.field("InstanceGroupName")
                .required("name the group, e.g. \"compute-nodes\"")
                .text();
        Optional<String> type = fields.field("InstanceType")
                .required("give the instance type, e.g. \"ml.p5.48xlarge\"")
                .text();
        Optional<Integer> count = fields.field("InstanceCount")
                .required("ask for 0 or more instances")
                .rangeFix("ask for 0 or more instances")
                .integer(0, Integer.MAX_VALUE);
        LifeCycleConfig lifeCycle = fields.field("LifeCycleConfig")
                .required("add \"LifeCycleConfig\":"
                        + " {\"SourceS3Uri\": \"s3://bucket/prefix\", \"OnCreate\": \"on_create.sh\"}")
                .object()
                .map(f -> readLifeCycle(f, problems))
                .orElse(null);
        Optional<String> role = fields.field("ExecutionRole").nonBlankText();
        Optional<Integer> threads = fields.field("ThreadsPerCore")
                .rangeFix("use 1 (hyper-threading off) or 2")
                .integer(1, 2);
        fields.accept(OTHER_GROUP_FIELDS);
        fields.warnUnknown();
        return new RequestedInstanceGroup(
                name.orElse(null),
                type.orElse(null),
                count.orElse(null),
                lifeCycle,
                role.orElse(null),
                threads.orElse(null));
    }

    private static LifeCycleConfig readLifeCycle(ConfigFields fields, Problems problems) {
        Optional<String> source = fields.field("SourceS3Uri")
                .required("give the S3 prefix holding on_create.sh and"
                        + " provisioning_parameters.json, e.g. s3://bucket/lifecycle")
                .text();
        source.filter(s -> !s.startsWith("s3://"))
                .ifPresent(s -> problems.error(
                        fields.pathOf("SourceS3Uri"),
                        Quote.text(s) + " is not an S3 URI",
                        "write it as s3://bucket/prefix"));
        Optional<String> onCreate = fields.field("OnCreate")
                .required("name the entry script, e.g. \"on_create.sh\"")
                .text();
        fields.warnUnknown();
        return new LifeCycleConfig(source.orElse(null), onCreate.orElse(null));
    }
}
