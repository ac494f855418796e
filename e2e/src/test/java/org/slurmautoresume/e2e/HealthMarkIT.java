package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;

/**
 * {@code autoresume health --mark} against the live controller, as slurmd would run it: a fake
 * nvidia-smi that shows one GPU missing, the real scontrol. The node ends up FAIL with reason
 * Action:Replace; an ordinary user's attempt is refused by Slurm and says so.
 */
class HealthMarkIT {

    private static LocalCluster cluster;
    private static SlurmTruth truth;
    private Path bin;
    private String node;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
    }

    @BeforeEach
    void fakeNvidiaSmi() throws IOException {
        List<String> nodes = cluster.nodeNames();
        node = nodes.get(nodes.size() - 1);
        bin = Files.createTempDirectory(
                "health-it-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        StringBuilder gpus = new StringBuilder();
        for (int i = 0; i < 7; i++) {
            gpus.append(i)
                    .append(", 00000000:")
                    .append(10 + i)
                    .append(":00.0, GPU-it-")
                    .append(i)
                    .append(", 0, No\n");
        }
        Path smi = bin.resolve("nvidia-smi");
        Files.writeString(
                smi,
                "#!/bin/sh\ncase \"$*\" in\n  *--query-gpu*) printf '%s' '" + gpus + "';;\n" + "  *) exit 2;;\nesac\n",
                StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterEach
    void resumeAndClean() throws IOException {
        if (truth.nodeField(node, "State").contains("FAIL")) {
            cluster.run(List.of("scontrol", "update", "nodename=" + node, "state=resume"));
        }
        try (var files = Files.list(bin)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(bin);
    }

    private List<String> health(String... args) {
        List<String> argv = new ArrayList<>(List.of(
                "env",
                "PATH=" + bin + ":" + System.getenv("PATH"),
                "SLURMD_NODENAME=" + node,
                cluster.launcher().toString(),
                "health",
                "--check",
                "gpu",
                "--expected-gpus",
                "8"));
        argv.addAll(List.of(args));
        return argv;
    }

    @Test
    void aMissingGpuMarksTheNodeFailWithActionReplace() {
        CommandResult result = cluster.run(health("--mark"));
        assertEquals(7, result.exitCode(), result.stdout() + result.stderr());
        // The wording is the feature: the check reports the scontrol update it ran; the state is checked below.
        assertTrue(
                result.stdout().contains("marked: ") && result.stdout().contains("nodename=" + node), result.stdout());
        assertTrue(truth.nodeField(node, "State").contains("FAIL"), truth.nodeField(node, "State"));
        assertEquals("Action:Replace", truth.nodeField(node, "Reason"));
    }

    @Test
    void dryRunLeavesTheNodeAlone() {
        String before = truth.nodeField(node, "State");
        CommandResult result = cluster.run(health("--mark", "--dry-run"));
        assertEquals(7, result.exitCode(), result.stderr());
        assertTrue(result.stdout().contains("would run: "), result.stdout()); // a dry run's output is its feature
        assertEquals(before, truth.nodeField(node, "State"));
    }

    @Test
    void anOrdinaryUserIsRefusedBySlurmAndToldSo() {
        CommandResult result = cluster.runAsTestUser(health("--mark"));
        assertEquals(4, result.exitCode(), result.stdout() + result.stderr());
        assertTrue(result.stderr().contains("could not mark node " + node), result.stderr()); // the user is told
        assertTrue(!truth.nodeField(node, "State").contains("FAIL"), truth.nodeField(node, "State"));
    }
}
