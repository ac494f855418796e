package org.slurmautoresume.lifecycle.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.lifecycle.validate.ValidationReport;

/**
 * Dogfooding: apply on local-cluster/*.json writes exactly the node and partition lines
 * the local cluster runs with today (captured from its slurm.conf), given the rest of that file.
 */
class LocalClusterApplyTest {

    private static final Path CONF = Path.of("/var/tmp/autoresume-cluster/etc/slurm.conf");

    @TempDir
    Path root;

    @Test
    void theGeneratedNodeAndPartitionLinesAreTheLocalClustersOwn() throws IOException {
        List<String> captured =
                Fixtures.text("apply/local-cluster-slurm.conf").lines().toList();
        List<String> base = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (String line : captured) {
            (line.startsWith("NodeName=") || line.startsWith("PartitionName=") ? expected : base).add(line);
        }
        Path conf = root.resolve("var/tmp/autoresume-cluster/etc/slurm.conf");
        Files.createDirectories(conf.getParent());
        Files.writeString(conf, String.join("\n", base) + "\n");
        // Surefire runs in the module's folder; the local cluster's files sit beside it.
        Path localCluster = Path.of(System.getProperty("user.dir")).resolveSibling("local-cluster");
        ValidationReport config = Fixtures.validated(
                localCluster.resolve("provisioning_parameters.json"), localCluster.resolve("resource_config.json"));

        LifecycleApply.Result result = LifecycleApply.run(
                config.provisioning().orElseThrow(),
                config.resourceConfig().orElseThrow(),
                new LifecycleApply.Selector(Optional.of("node2"), Optional.empty(), Fixtures.host(List.of(), null)),
                InstallLayout.defaults(root, CONF),
                false);

        assertEquals(Role.COMPUTE, result.node().role());
        List<String> written = Files.readAllLines(conf);
        assertEquals(base, written.subList(0, base.size()), "the local cluster's own settings are untouched");
        List<String> block = written.subList(base.size() + 1, written.size() - 1);
        assertEquals(expected, block);
        assertEquals(List.of("SlurmctldHost is set on line 4: left as it is"), result.notes());
        assertEquals(
                "include /var/tmp/autoresume-cluster/etc/plugstack.conf.d/*.conf",
                Files.readAllLines(root.resolve("var/tmp/autoresume-cluster/etc/plugstack.conf"))
                        .get(1));
    }
}
