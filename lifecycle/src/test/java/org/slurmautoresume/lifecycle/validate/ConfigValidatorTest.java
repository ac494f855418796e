package org.slurmautoresume.lifecycle.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.configfile.ConfigProblem;

/** One test per kind of problem, each starting from the valid fixtures with one thing broken. */
class ConfigValidatorTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path dir;

    private ObjectNode provisioning;
    private ObjectNode resources;
    private ObjectNode request;

    @BeforeEach
    void loadValidFixtures() throws IOException {
        provisioning = fixture("validate/valid/provisioning_parameters.json");
        resources = fixture("validate/valid/resource_config.json");
        request = fixture("validate/valid/create_cluster.json");
    }

    @Test
    void theValidFilesPassWithoutAnyProblem() throws IOException {
        ValidationReport report = run();
        assertEquals(List.of(), report.problems());
        assertTrue(report.ok());
        assertEquals(
                "compute-nodes",
                report.provisioning().orElseThrow().workerGroups().get(0).instanceGroupName());
        assertEquals(
                4,
                report.resourceConfig()
                        .orElseThrow()
                        .group("compute-nodes")
                        .orElseThrow()
                        .instances()
                        .size());
    }

    @Test
    void brokenJsonIsReportedWithLineAndColumn() throws IOException {
        Path broken = copyResource("validate/bad-json.json");
        ValidationReport report =
                ConfigValidator.validate(broken, Optional.of(write("r.json", resources)), Optional.empty());
        ConfigProblem problem = only(report.errors());
        assertEquals("$", problem.path());
        assertTrue(problem.message().contains("line 4, column"), problem.message());
        assertTrue(report.provisioning().isEmpty());
    }

    @Test
    void aMissingRequiredFieldIsAnError() throws IOException {
        provisioning.remove("controller_group");
        ConfigProblem problem = only(run().errors());
        assertEquals("$.controller_group", problem.path());
        assertTrue(problem.message().contains("missing"));
        assertTrue(problem.fix().contains("controller_group"));
    }

    @Test
    void aWrongTypeIsAnErrorNamingWhatWasFound() throws IOException {
        ((ObjectNode) request.withArray("InstanceGroups").get(2)).put("InstanceCount", "4");
        ConfigProblem problem = only(run().errors());
        assertEquals("$.InstanceGroups[2].InstanceCount", problem.path());
        assertEquals("expected a whole number, found text \"4\"", problem.message());
    }

    @Test
    void anUnknownFieldIsAWarningThatSuggestsTheKnownName() throws IOException {
        ((ObjectNode) request.withArray("InstanceGroups").get(0).get("LifeCycleConfig")).put("SourceS3URI", "s3://b/p");
        ValidationReport report = run();
        assertTrue(report.ok());
        ConfigProblem problem = only(report.warnings());
        assertEquals("$.InstanceGroups[0].LifeCycleConfig.SourceS3URI", problem.path());
        assertTrue(problem.fix().contains("did you mean \"SourceS3Uri\""), problem.fix());
    }

    @Test
    void aGroupMissingFromTheResourceConfigIsAnErrorListingTheGroupsThere() throws IOException {
        provisioning.put("login_group", "login");
        request.withArray("InstanceGroups").remove(1);
        ValidationReport report = run();
        assertEquals(List.of("$.login_group", "$.login_group", "$.InstanceGroups[1].Name"), fields(report.errors()));
        assertTrue(report.errors().get(0).message().contains("controller-machine, login-group, compute-nodes"));
        assertTrue(report.errors().get(1).message().contains("not in the cluster request"));
    }

    @Test
    void aGroupMissingFromTheClusterRequestIsAnError() throws IOException {
        ((ObjectNode) request.withArray("InstanceGroups").get(2)).put("InstanceGroupName", "workers");
        ValidationReport report = run();
        assertEquals(
                List.of("$.worker_groups[0].instance_group_name", "$.InstanceGroups[2].Name"), fields(report.errors()));
        assertEquals(List.of("$.InstanceGroups[2].InstanceGroupName"), fields(report.warnings()));
    }

    @Test
    void duplicateGroupNamesAreErrors() throws IOException {
        ((ObjectNode) resources.withArray("InstanceGroups").get(1)).put("Name", "controller-machine");
        ((ObjectNode) request.withArray("InstanceGroups").get(1)).put("InstanceGroupName", "controller-machine");
        ValidationReport report = run();
        List<String> errors = fields(report.errors());
        assertTrue(errors.contains("$.InstanceGroups[1].Name"), errors.toString());
        assertTrue(errors.contains("$.InstanceGroups[1].InstanceGroupName"), errors.toString());
        assertTrue(report.errors().stream().anyMatch(p -> p.message().startsWith("duplicate instance group name")));
    }

    @Test
    void duplicateInstanceNamesIdsAndAddressesAreErrors() throws IOException {
        ObjectNode second = instance(2, 1);
        second.put("InstanceName", "compute-nodes-1");
        second.put("InstanceId", "i-00000000000000001");
        second.put("CustomerIpAddress", "10.1.0.21");
        ValidationReport report = run();
        assertEquals(
                List.of(
                        "$.InstanceGroups[2].Instances[1].InstanceName",
                        "$.InstanceGroups[2].Instances[1].InstanceId",
                        "$.InstanceGroups[2].Instances[1].CustomerIpAddress"),
                fields(report.errors()));
    }

    @Test
    void theSameAddressWithDifferentPortsIsAllowed() throws IOException {
        for (int i = 0; i < 4; i++) {
            ObjectNode instance = instance(2, i);
            instance.put("CustomerIpAddress", "10.1.0.21");
            instance.putObject("Autoresume").put("Port", 17001 + i);
        }
        assertEquals(List.of(), run().problems());
    }

    @Test
    void aDuplicateWorkerGroupIsAnError() throws IOException {
        provisioning
                .withArray("worker_groups")
                .add(provisioning.withArray("worker_groups").get(0).deepCopy());
        ConfigProblem problem = only(run().errors());
        assertEquals("$.worker_groups[1].instance_group_name", problem.path());
        assertTrue(problem.message().startsWith("duplicate worker group"));
    }

    @Test
    void aGroupWithTwoRolesIsAnError() throws IOException {
        provisioning.put("login_group", "controller-machine");
        ValidationReport report = run();
        assertTrue(
                fields(report.errors()).contains("$.login_group"),
                report.errors().toString());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"111.222.333.444", "10.1.0", "10.1.0.021", "fd00::zz", "compute-3.internal", "localhost", ""})
    void badAddressesAreErrorsAndNeverLookedUp(String address) throws IOException {
        instance(2, 2).put("CustomerIpAddress", address);
        ConfigProblem problem = only(run().errors());
        assertEquals("$.InstanceGroups[2].Instances[2].CustomerIpAddress", problem.path());
    }

    @ParameterizedTest
    @ValueSource(strings = {"fd00::3", "::ffff:10.1.0.23", "fe80::1%eth0", "0.0.0.0", "255.255.255.255"})
    void ipv6AndEdgeAddressesAreAccepted(String address) throws IOException {
        instance(2, 2).put("CustomerIpAddress", address);
        assertEquals(List.of(), run().problems());
    }

    @Test
    void aControllerGroupWithoutInstancesIsAMissingController() throws IOException {
        ((ObjectNode) resources.withArray("InstanceGroups").get(0)).putArray("Instances");
        ((ObjectNode) request.withArray("InstanceGroups").get(0)).put("InstanceCount", 0);
        ConfigProblem problem = only(run().errors());
        assertEquals("$.controller_group", problem.path());
        assertTrue(problem.message().contains("no slurmctld host"));
    }

    @Test
    void instancesMustMatchTheRequestedCount() throws IOException {
        ((ArrayNode) resources.withArray("InstanceGroups").get(2).get("Instances")).remove(3);
        ConfigProblem problem = only(run().errors());
        assertEquals("$.InstanceGroups[2].Instances", problem.path());
        assertTrue(problem.message().contains("3 instances but the request asks for InstanceCount 4"));
    }

    @Test
    void sharedStorageNeedsBothFsxFields() throws IOException {
        provisioning.remove("fsx_mountname");
        ConfigProblem problem = only(run().errors());
        assertEquals("$.fsx_mountname", problem.path());
    }

    @Test
    void sparesMustLeaveWorkingNodes() throws IOException {
        ((ObjectNode) provisioning.withArray("worker_groups").get(0).get("autoresume")).put("spare_count", 4);
        ConfigProblem problem = only(run().errors());
        assertEquals("$.worker_groups[0].autoresume.spare_count", problem.path());
    }

    @Test
    void nodeOptionsMayNotSetWhatApplyWrites() throws IOException {
        ((ObjectNode) provisioning.withArray("worker_groups").get(0).get("autoresume"))
                .put("node_options", "CPUs=4 port=1 junk");
        ValidationReport report = run();
        assertEquals(2, report.errors().size());
        assertTrue(report.errors().get(0).message().contains("port= is written by autoresume"));
        assertTrue(report.errors().get(1).message().contains("\"junk\" is not a Key=Value"));
    }

    @Test
    void theRequestIsOptionalButAMissingFileIsAnError() throws IOException {
        ValidationReport report = ConfigValidator.validate(
                write("p.json", provisioning), Optional.of(dir.resolve("absent.json")), Optional.empty());
        ConfigProblem problem = only(report.errors());
        assertTrue(problem.file().endsWith("absent.json"));
        assertTrue(problem.message().contains("does not exist"));
    }

    @Test
    void everyProblemOfEveryFileIsReportedInOneRun() throws IOException {
        ValidationReport report = ConfigValidator.validate(
                copyResource("validate/all-wrong/provisioning_parameters.json"),
                Optional.of(copyResource("validate/all-wrong/resource_config.json")),
                Optional.of(copyResource("validate/all-wrong/create_cluster.json")));
        List<String> found = report.problems().stream()
                .map(p -> p.severity() + " " + Path.of(p.file()).getFileName() + " " + p.path())
                .collect(Collectors.toList());
        assertEquals(
                List.of(
                        "ERROR provisioning_parameters.json $.worker_groups[1].partition_name",
                        "ERROR provisioning_parameters.json $.worker_groups[2].instance_group_name",
                        "ERROR provisioning_parameters.json $.worker_groups[2].partition_name",
                        "ERROR provisioning_parameters.json $.fsx_mountname",
                        "WARNING provisioning_parameters.json $.fsx_mount_name",
                        "ERROR provisioning_parameters.json $.worker_groups[1].instance_group_name",
                        "ERROR resource_config.json $.InstanceGroups[1].Instances[0].AgentIpAddress",
                        "ERROR resource_config.json $.InstanceGroups[1].Instances[2].CustomerIpAddress",
                        "ERROR resource_config.json $.InstanceGroups[1].Instances[1].InstanceName",
                        "ERROR resource_config.json $.InstanceGroups[1].Instances[1].InstanceId",
                        "ERROR resource_config.json $.InstanceGroups[1].Instances[1].CustomerIpAddress",
                        "ERROR create_cluster.json $.InstanceGroups[0].LifeCycleConfig.SourceS3Uri",
                        "WARNING create_cluster.json $.InstanceGroups[0].LifeCycleConfig.SourceS3URI",
                        "ERROR create_cluster.json $.InstanceGroups[1].InstanceCount",
                        "ERROR create_cluster.json $.InstanceGroups[1].LifeCycleConfig.SourceS3Uri",
                        "ERROR provisioning_parameters.json $.controller_group",
                        "ERROR provisioning_parameters.json $.login_group",
                        "WARNING provisioning_parameters.json $.worker_groups[0]",
                        "WARNING provisioning_parameters.json $.worker_groups[1]",
                        "WARNING resource_config.json $.InstanceGroups[0].Name",
                        "ERROR provisioning_parameters.json $.controller_group",
                        "ERROR provisioning_parameters.json $.login_group",
                        "ERROR resource_config.json $.InstanceGroups[0].Instances"),
                found);
        assertFalse(report.ok());
        assertTrue(report.problems().stream().allMatch(p -> !p.fix().isBlank()), "every problem has a fix");
    }

    // ------------------------------------------------------------------ helpers

    private ValidationReport run() throws IOException {
        return ConfigValidator.validate(
                write("provisioning_parameters.json", provisioning),
                Optional.of(write("resource_config.json", resources)),
                Optional.of(write("create_cluster.json", request)));
    }

    private ObjectNode instance(int group, int index) {
        ArrayNode instances =
                (ArrayNode) resources.withArray("InstanceGroups").get(group).get("Instances");
        return (ObjectNode) instances.get(index);
    }

    private Path write(String name, ObjectNode tree) throws IOException {
        Path path = dir.resolve(name);
        MAPPER.writeValue(path.toFile(), tree);
        return path;
    }

    private Path copyResource(String resource) throws IOException {
        Path path = dir.resolve(resource);
        Files.createDirectories(path.getParent());
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(resource)) {
            Files.copy(in, path);
        }
        return path;
    }

    private static ObjectNode fixture(String resource) throws IOException {
        try (InputStream in = ConfigValidatorTest.class.getClassLoader().getResourceAsStream(resource)) {
            return (ObjectNode) MAPPER.readTree(in);
        }
    }

    private static ConfigProblem only(List<ConfigProblem> problems) {
        assertEquals(1, problems.size(), problems.toString());
        return problems.get(0);
    }

    private static List<String> fields(List<ConfigProblem> problems) {
        return problems.stream().map(ConfigProblem::path).toList();
    }
}
