package org.slurmautoresume.lifecycle.validate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.lifecycle.model.ClusterRequest;
import org.slurmautoresume.lifecycle.model.LifeCycleConfig;
import org.slurmautoresume.lifecycle.model.RequestedInstanceGroup;

/** The cluster-creation request ({@code create_cluster.json}): its instance groups and lifecycle config. */
final class ClusterRequestReader {

    /** Request fields this tool does not check but that are part of the API, so no "unknown field" warning. */
    private static final String[] OTHER_REQUEST_FIELDS = {"VpcConfig", "Tags", "Orchestrator", "NodeRecovery",
        "NodeProvisioningMode", "ClusterRole", "RestrictedInstanceGroups", "TieredStorageConfig", "AutoScaling"};
    private static final String[] OTHER_GROUP_FIELDS = {"InstanceStorageConfigs", "OnStartDeepHealthChecks",
        "TrainingPlanArn", "OverrideVpcConfig", "ScheduledUpdateConfig", "ImageId", "KubernetesConfig"};

    private ClusterRequestReader() {
    }

    static Optional<ClusterRequest> read(JsonNode root, Problems problems) {
        return Fields.object(root, "$", problems).map(fields -> read(fields, problems));
    }

    private static ClusterRequest read(Fields fields, Problems problems) {
        Optional<String> name = fields.optionalString("ClusterName");
        List<RequestedInstanceGroup> groups = new ArrayList<>();
        Map<String, String> seen = new HashMap<>();
        for (Fields.Element element : fields.array("InstanceGroups", true,
                "list the instance groups to create: [{\"InstanceGroupName\": ..., \"InstanceType\": ...,"
                        + " \"InstanceCount\": ..., \"LifeCycleConfig\": {...}}]")) {
            RequestedInstanceGroup group = readGroup(element, problems);
            groups.add(group);
            if (group.instanceGroupName() != null) {
                String earlier = seen.putIfAbsent(group.instanceGroupName(), element.path());
                if (earlier != null) {
                    problems.error(element.path() + ".InstanceGroupName", "duplicate instance group name \""
                            + group.instanceGroupName() + "\" (also at " + earlier + ")", "give each instance group a unique name");
                }
            }
        }
        fields.accept(OTHER_REQUEST_FIELDS);
        fields.reportUnknown();
        return new ClusterRequest(name.orElse(null), groups);
    }

    private static RequestedInstanceGroup readGroup(Fields.Element element, Problems problems) {
        Optional<Fields> maybe = Fields.object(element.node(), element.path(), problems);
        if (maybe.isEmpty()) {
            return new RequestedInstanceGroup(null, null, null, null, null, null);
        }
        Fields fields = maybe.get();
        Optional<String> name = fields.requiredString("InstanceGroupName", "name the group, e.g. \"compute-nodes\"");
        Optional<String> type = fields.requiredString("InstanceType", "give the instance type, e.g. \"ml.p5.48xlarge\"");
        Optional<Integer> count = fields.integer("InstanceCount", true, 0, "ask for 0 or more instances");
        LifeCycleConfig lifeCycle = fields.requiredObject("LifeCycleConfig",
                "add \"LifeCycleConfig\": {\"SourceS3Uri\": \"s3://bucket/prefix\", \"OnCreate\": \"on_create.sh\"}")
                .map(f -> readLifeCycle(f, problems)).orElse(null);
        Optional<String> role = fields.optionalString("ExecutionRole");
        Optional<Integer> threads = fields.integer("ThreadsPerCore", false, 1, "use 1 or 2");
        threads.filter(t -> t > 2).ifPresent(t -> problems.error(fields.pathOf("ThreadsPerCore"),
                "ThreadsPerCore is " + t + "; instances have 1 or 2", "use 1 (hyper-threading off) or 2"));
        fields.accept(OTHER_GROUP_FIELDS);
        fields.reportUnknown();
        return new RequestedInstanceGroup(name.orElse(null), type.orElse(null), count.orElse(null), lifeCycle,
                role.orElse(null), threads.orElse(null));
    }

    private static LifeCycleConfig readLifeCycle(Fields fields, Problems problems) {
        Optional<String> source = fields.requiredString("SourceS3Uri",
                "give the S3 prefix holding on_create.sh and provisioning_parameters.json, e.g. s3://bucket/lifecycle");
        source.filter(s -> !s.startsWith("s3://")).ifPresent(s -> problems.error(fields.pathOf("SourceS3Uri"),
                "\"" + s + "\" is not an S3 URI", "write it as s3://bucket/prefix"));
        Optional<String> onCreate = fields.requiredString("OnCreate", "name the entry script, e.g. \"on_create.sh\"");
        fields.reportUnknown();
        return new LifeCycleConfig(source.orElse(null), onCreate.orElse(null));
    }
}
