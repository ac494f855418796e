package org.slurmautoresume.agent.server;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.model.SlurmVersion;
import org.slurmautoresume.slurm.plugin.PluginCheck;

/**
 * When the agent starts (after every Slurm upgrade, the node's daemons restart and so does it):
 * whether the auto_resume.so this node's plugstack lists loads into the Slurm here. One that does
 * not is said on stderr, in the audit log ({@code "spankPlugin"}, with what to rebuild) and in the
 * metric {@code autoresume_agent_spank_plugin_loads} (0), for an alert: srun skips such a plugin
 * and refuses every {@code --auto-resume=1}. Software, not hardware: the node is never marked.
 */
public final class SpankPluginAtStart {

    private static final Logger LOG = LoggerFactory.getLogger(SpankPluginAtStart.class);

    private SpankPluginAtStart() {}

    /** The checks made; none when no auto_resume.so is listed (then nothing is said or exported). */
    public static List<PluginCheck> check(
            Map<String, String> environment, Supplier<SlurmVersion> running, AuditLog audit, AgentMetrics metrics) {
        List<PluginCheck> checks;
        try {
            checks = PluginCheck.ofNode(environment, running);
        } catch (IOException | SlurmException e) {
            LOG.warn("cannot tell whether this node's auto_resume.so loads into its Slurm: {}", e.getMessage());
            return List.of();
        }
        if (checks.isEmpty()) {
            return checks;
        }
        metrics.spankPluginLoads(checks.stream().allMatch(PluginCheck::loads));
        for (PluginCheck check : checks) {
            if (check.loads()) {
                continue;
            }
            String problem = check.problem().orElseThrow();
            System.err.println("autoresume agent: WARNING: " + problem);
            Map<String, Object> finding = new LinkedHashMap<>();
            finding.put("plugin", check.plugin().toString());
            finding.put("listedIn", check.listedIn().toString());
            finding.put("builtFor", check.builtFor().map(Object::toString).orElse(null));
            finding.put("running", check.running().toString());
            audit.recordHealth("spankPlugin", finding, problem);
        }
        return checks;
    }
}
