package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;

/** The launcher run as the test user against the live controller. */
class CliAgainstClusterIT {

    private static LocalCluster cluster;
    private static SlurmTruth truth;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
    }

    private CommandResult autoresume(String... args) {
        List<String> argv = new ArrayList<>(List.of(cluster.launcher().toString()));
        argv.addAll(List.of(args));
        return cluster.runAsTestUser(argv);
    }

    /**
     * Dogfood: the cluster these tests run on got its node and partition lines from
     * {@code autoresume lifecycle apply} (local-cluster.sh up). Applying the same JSON files
     * to a copy of the live slurm.conf changes nothing, and every node in them is a node Slurm
     * runs, at the address and port the resource config gives.
     */
    @Test
    void theClusterItselfIsConfiguredByLifecycleApply() throws Exception {
        Path etc = cluster.clusterDir().resolve("etc");
        Path root = Files.createTempDirectory("lifecycle-dogfood");
        try {
            Files.copy(etc.resolve("slurm.conf"), root.resolve("slurm.conf"));
            CommandResult apply = cluster.run(List.of(
                    cluster.launcher().toString(),
                    "lifecycle",
                    "apply",
                    "--json",
                    "--dry-run",
                    "--provisioning",
                    etc.resolve("lifecycle/provisioning_parameters.json").toString(),
                    "--resource-config",
                    etc.resolve("lifecycle/resource_config.json").toString(),
                    "--node",
                    "controller",
                    "--root",
                    root.toString(),
                    "--slurm-conf",
                    "/slurm.conf"));
            assertEquals(0, apply.exitCode(), apply.stdout() + apply.stderr());
            JsonNode report = new ObjectMapper().readTree(apply.stdout());
            assertEquals("controller", report.get("role").asText(), apply.stdout());
            boolean sawSlurmConf = false;
            for (JsonNode file : report.get("files")) {
                if (file.get("path").asText().endsWith("slurm.conf")) {
                    sawSlurmConf = true;
                    assertEquals(
                            "UNCHANGED",
                            file.get("status").asText(),
                            file.get("diff").asText());
                }
            }
            assertTrue(sawSlurmConf, apply.stdout());
        } finally {
            try (var files = Files.walk(root)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        JsonNode resources = new ObjectMapper()
                .readTree(etc.resolve("lifecycle/resource_config.json").toFile());
        List<String> described = new ArrayList<>();
        for (JsonNode group : resources.get("InstanceGroups")) {
            if (!group.get("Name").asText().equals("nodes")) {
                continue;
            }
            for (JsonNode instance : group.get("Instances")) {
                String node = instance.get("InstanceName").asText();
                described.add(node);
                assertEquals(instance.get("CustomerIpAddress").asText(), truth.nodeField(node, "NodeAddr"));
                assertEquals(instance.get("Autoresume").get("Port").asText(), truth.nodeField(node, "Port"));
            }
        }
        assertEquals(cluster.nodeNames(), described);
    }

    @Test
    void nodesJsonListsEveryNodeWithScontrolsAddressAndPort() throws Exception {
        CommandResult result = autoresume("nodes", "--json");
        assertEquals(0, result.exitCode(), result.stderr());
        JsonNode nodes = new ObjectMapper().readTree(result.stdout());
        List<String> names = new ArrayList<>();
        for (JsonNode node : nodes) {
            String name = node.get("name").asText();
            names.add(name);
            assertEquals(truth.nodeField(name, "NodeAddr"), node.get("address").asText());
            assertEquals(truth.nodeField(name, "Port"), node.get("port").asText());
            assertEquals(truth.nodeField(name, "State"), node.get("state").asText());
        }
        assertEquals(cluster.nodeNames(), names);
    }

    @Test
    void nodesAcceptsAHostlistAndFiltersByState() {
        CommandResult result = autoresume("nodes", "node[1-2]");
        assertEquals(0, result.exitCode(), result.stderr());
        List<String> lines = result.stdout().lines().toList();
        assertEquals(3, lines.size(), result.stdout());
        assertTrue(lines.get(1).startsWith("node1 "));
        assertTrue(lines.get(2).startsWith("node2 "));

        CommandResult none = autoresume("nodes", "--state", "fail,maint");
        assertEquals(0, none.exitCode(), none.stderr());
        assertEquals(1, none.stdout().lines().count(), "no node should be failed: " + none.stdout());
    }

    // In the tests below the wording is the feature: what an error message names and hints at.
    @Test
    void unknownJobIsAClearErrorNotAStackTrace() {
        CommandResult result = autoresume("job", "987654321");
        assertEquals(3, result.exitCode());
        assertTrue(result.stderr().contains("987654321"), result.stderr());
        assertFalse(result.stderr().contains("Exception"), result.stderr());
    }

    @Test
    void envOutsideAJobSaysHowToNameOne() {
        CommandResult result = cluster.run(List.of(
                "env",
                "-u",
                "SLURM_JOB_ID",
                "-u",
                "SLURM_JOBID",
                cluster.launcher().toString(),
                "env"));
        assertEquals(2, result.exitCode());
        assertTrue(result.stderr().contains("--job"), result.stderr());
    }

    @Test
    void hugeHostlistIsRefusedBeforeAnyoneExpandsIt() {
        CommandResult result = autoresume("nodes", "n[0-999999999]");
        assertEquals(2, result.exitCode(), result.stdout() + result.stderr());
        assertFalse(result.stderr().contains("OutOfMemoryError"), result.stderr());
        assertTrue(result.stderr().contains("n[0-999999999]"), result.stderr());
    }

    @Test
    void usageErrorsExitTwoWithAHint() {
        CommandResult result = autoresume("env", "--format", "yaml");
        assertEquals(2, result.exitCode());
        assertTrue(result.stderr().contains("autoresume env --help"), result.stderr());
    }
}
