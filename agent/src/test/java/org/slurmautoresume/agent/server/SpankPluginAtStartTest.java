package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.slurm.model.SlurmVersion;
import org.slurmautoresume.slurm.plugin.HostPlugins;
import org.slurmautoresume.slurm.plugin.PluginRelease;

/**
 * The agent's check at start, with a real plugin file (a copy of one of the host's Slurm plugins
 * under auto_resume.so's name) listed in a plugstack: a Slurm upgrade past it is audited with what
 * to rebuild and exported as 0; a plugin that loads is exported as 1 and audits nothing.
 */
class SpankPluginAtStartTest {

    @TempDir
    Path dir;

    private Map<String, String> env;
    private SlurmVersion built;
    private AuditLog audit;
    private final AgentMetrics metrics = new AgentMetrics();

    @BeforeEach
    void plugstackListingTheCopy() throws Exception {
        Path plugin = dir.resolve("auto_resume.so");
        Files.copy(HostPlugins.selectConsTres(), plugin);
        built = PluginRelease.builtFor(plugin).orElseThrow();
        Path slurmConf = Files.writeString(dir.resolve("slurm.conf"), "ClusterName=c\n");
        Files.writeString(dir.resolve("plugstack.conf"), "optional " + plugin + "\n");
        env = Map.of("SLURM_CONF", slurmConf.toString());
        audit = new AuditLog(dir.resolve("audit/agent-audit.log"));
    }

    @Test
    void aPluginBuiltForTheReleaseBeforeTheUpgradeIsAuditedAndExportedAsNotLoading() throws IOException {
        SlurmVersion upgraded = new SlurmVersion(built.major() + 2, 11, 5);
        SpankPluginAtStart.check(env, () -> upgraded, audit, metrics);
        audit.close();

        String line = Files.readString(audit.file()).strip();
        assertTrue(line.contains("\"spankPlugin\":{\"plugin\":\"" + dir.resolve("auto_resume.so") + "\""), line);
        assertTrue(line.contains("\"builtFor\":\"" + built + "\",\"running\":\"" + upgraded + "\""), line);
        assertTrue(line.contains("Rebuild it against Slurm"), line);
        assertEquals(OptionalDouble.of(0), loadsGauge());
    }

    @Test
    void aPluginThatLoadsIsExportedAsLoadingAndNotAudited() throws IOException {
        SpankPluginAtStart.check(env, () -> built, audit, metrics);
        audit.close();
        assertEquals("", Files.readString(audit.file()));
        assertEquals(OptionalDouble.of(1), loadsGauge());
    }

    @Test
    void noPluginListedMeansNothingExported() throws IOException {
        Files.writeString(dir.resolve("plugstack.conf"), "# nothing\n");
        SpankPluginAtStart.check(
                env,
                () -> {
                    throw new AssertionError("the running release was asked with no plugin listed");
                },
                audit,
                metrics);
        assertFalse(loadsGauge().isPresent());
    }

    private OptionalDouble loadsGauge() {
        for (MetricSnapshot snapshot : metrics.registry().scrape()) {
            if (snapshot.getMetadata().getName().equals("autoresume_agent_spank_plugin_loads")) {
                return OptionalDouble.of(
                        ((GaugeSnapshot) snapshot).getDataPoints().get(0).getValue());
            }
        }
        return OptionalDouble.empty();
    }
}
