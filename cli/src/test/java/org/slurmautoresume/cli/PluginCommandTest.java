package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.nodeops.health.FakeTools;
import org.slurmautoresume.slurm.exec.CommonsExecCommandRunner;
import org.slurmautoresume.slurm.plugin.HostPlugins;
import org.slurmautoresume.slurm.plugin.PluginRelease;

/**
 * `autoresume plugin` with a real plugin file (a copy of one of the host's Slurm plugins under
 * auto_resume.so's name) and a stand-in scontrol saying which release runs.
 */
class PluginCommandTest {

    @TempDir
    Path dir;

    private FakeTools tools;
    private Path plugin;
    private String built;
    private String out;

    @BeforeEach
    void plugstackListingTheCopy() throws Exception {
        tools = new FakeTools(Files.createDirectories(dir.resolve("bin")));
        plugin = dir.resolve("auto_resume.so");
        Files.copy(HostPlugins.selectConsTres(), plugin);
        built = PluginRelease.builtFor(plugin).orElseThrow().toString();
        Files.writeString(dir.resolve("slurm.conf"), "ClusterName=c\n");
        Files.writeString(dir.resolve("plugstack.conf"), "optional " + plugin + "\n");
    }

    private int run(String release, String... args) {
        tools.script(
                "scontrol", "#!/bin/sh\n[ \"$1\" = --version ] && echo 'slurm " + release + "' && exit 0\nexit 1\n");
        CliHarness cli = new CliHarness(
                Map.of(
                        "PATH",
                        tools.path(),
                        "SLURM_CONF",
                        dir.resolve("slurm.conf").toString()),
                CommonsExecCommandRunner::new);
        int code = cli.run(args);
        out = cli.out;
        return code;
    }

    @Test
    void aPluginBuiltForTheRunningReleaseLoads() {
        assertEquals(0, run(built, "plugin"));
        assertTrue(
                out.contains(plugin + " (built for Slurm " + built + ", listed in " + dir.resolve("plugstack.conf")
                        + ") loads into Slurm " + built),
                out);
    }

    @Test
    void afterAnUpgradeItExitsOneAndNamesWhatToRebuild() throws Exception {
        assertEquals(1, run("99.11.2", "plugin", "--json"));
        JsonNode check = new ObjectMapper().readTree(out).get(0);
        assertEquals(built, check.get("builtFor").asText());
        assertTrue(check.get("problem").asText().contains("Rebuild it against Slurm 99.11"), check.toString());
        assertEquals(1, run("99.11.2", "plugin", "--plugin", plugin.toString()));
        assertTrue(out.contains("was built for Slurm " + built + " and this node runs 99.11.2"), out);
    }

    @Test
    void noneListedExitsNotFound() throws Exception {
        Files.writeString(dir.resolve("plugstack.conf"), "required /usr/lib/slurm/spank_other.so\n");
        assertEquals(ExitCode.NOT_FOUND.code(), run(built, "plugin"));
        assertTrue(out.contains("no auto_resume.so is listed"), out);
    }
}
