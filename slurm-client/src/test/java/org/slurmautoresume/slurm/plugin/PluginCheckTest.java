package org.slurmautoresume.slurm.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.slurm.model.SlurmVersion;

/**
 * The listed auto_resume.so against the running Slurm, with a real plugin file: a copy of one of
 * the host's Slurm plugins under that name (built for the host's release, 22.05 on bookworm).
 */
class PluginCheckTest {

    @TempDir
    Path dir;

    private Map<String, String> env;
    private SlurmVersion built;

    @BeforeEach
    void plugstackListingTheCopy() throws Exception {
        Files.copy(HostPlugins.selectConsTres(), dir.resolve("auto_resume.so"));
        built = PluginRelease.builtFor(dir.resolve("auto_resume.so")).orElseThrow();
        Path slurmConf = Files.writeString(dir.resolve("slurm.conf"), "PluginDir=" + dir + "\n");
        Files.writeString(
                dir.resolve("plugstack.conf"),
                "optional " + dir.resolve("auto_resume.so")
                        + " supervisor=/usr/bin/autoresume\nrequired /usr/lib/slurm/spank_other.so\n");
        env = Map.of("SLURM_CONF", slurmConf.toString());
    }

    @Test
    void aPluginBuiltForTheRunningReleaseLoads() throws IOException {
        SlurmVersion laterPatch = new SlurmVersion(built.major(), built.minor(), built.patch() + 3);
        List<PluginCheck> checks = PluginCheck.ofNode(env, () -> laterPatch);
        assertEquals(1, checks.size(), checks.toString());
        assertTrue(checks.get(0).loads());
        assertEquals(Optional.empty(), checks.get(0).problem());
        assertEquals(dir.resolve("plugstack.conf"), checks.get(0).listedIn());
    }

    @Test
    void afterAnUpgradeItSaysThePluginIsSkippedAndWhatToRebuild() throws IOException {
        SlurmVersion upgraded = new SlurmVersion(built.major() + 2, 11, 5);
        PluginCheck check = PluginCheck.ofNode(env, () -> upgraded).get(0);
        assertFalse(check.loads());
        assertEquals(Optional.of(built), check.builtFor());
        String problem = check.problem().orElseThrow();
        assertTrue(problem.contains("was built for Slurm " + built + " and this node runs " + upgraded), problem);
        assertTrue(problem.contains("refuses --auto-resume=1 as an unknown option"), problem);
        assertTrue(
                problem.contains("Rebuild it against Slurm " + String.format("%02d.11", built.major() + 2)), problem);
    }

    @Test
    void withNoAutoResumePluginListedTheRunningReleaseIsNotAsked() throws IOException {
        Files.writeString(dir.resolve("plugstack.conf"), "required /usr/lib/slurm/spank_other.so\n");
        assertEquals(List.of(), PluginCheck.ofNode(env, () -> {
            throw new AssertionError("asked for the running release");
        }));
    }

    @Test
    void aListedPluginThatIsGoneOrABareNameUnderPluginDir() throws IOException {
        Files.writeString(dir.resolve("plugstack.conf"), "optional auto_resume.so\noptional /gone/auto_resume.so\n");
        List<PluginCheck> checks = PluginCheck.ofNode(env, () -> built);
        assertEquals(dir.resolve("auto_resume.so"), checks.get(0).plugin(), "a bare name is under PluginDir");
        assertTrue(checks.get(0).loads());
        assertFalse(checks.get(1).loads());
        assertTrue(
                checks.get(1).problem().orElseThrow().contains("/gone/auto_resume.so is listed in"),
                checks.get(1).toString());
    }
}
