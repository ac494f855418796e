package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.bridge.exec.CommandResult;

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

    @Test
    void unknownJobIsAClearErrorNotAStackTrace() {
        CommandResult result = autoresume("job", "987654321");
        assertEquals(3, result.exitCode());
        assertTrue(result.stderr().contains("987654321"), result.stderr());
        assertFalse(result.stderr().contains("Exception"), result.stderr());
    }

    @Test
    void envOutsideAJobSaysHowToNameOne() {
        CommandResult result = cluster.run(List.of("env", "-u", "SLURM_JOB_ID", "-u", "SLURM_JOBID",
                cluster.launcher().toString(), "env"));
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
