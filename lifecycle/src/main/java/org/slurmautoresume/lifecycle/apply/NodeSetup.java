package org.slurmautoresume.lifecycle.apply;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The files one node needs for its role. Every role gets the same slurm.conf block (Slurm wants
 * one slurm.conf everywhere) and the plugin's plugstack line (srun, sbatch and slurmstepd all
 * load it); compute nodes also get the agent and the health-check wrapper; the controller gets
 * the sweep's service and timer.
 */
public final class NodeSetup {

    public static final String PLUGSTACK_SNIPPET = "auto_resume.conf";
    public static final String AGENT_UNIT = "autoresume-agent.service";
    public static final String SWEEP_SERVICE = "autoresume-sweep.service";
    public static final String SWEEP_TIMER = "autoresume-sweep.timer";
    private static final String INSTALLED_COMMAND = "/usr/local/bin/autoresume";

    private NodeSetup() {}

    /** The desired files, and notes on what was left to the admin. */
    public record Setup(List<DesiredFile> files, List<String> notes, List<String> unitsToEnable) {}

    public static Setup plan(ClusterPlan plan, PlannedNode node, InstallLayout layout) {
        List<DesiredFile> files = new ArrayList<>();
        List<String> units = new ArrayList<>();
        String slurmConfText = Applier.read(layout.under(layout.slurmConf())).orElse("");
        List<String> adminLines = ManagedBlock.outside(layout.slurmConf().toString(), slurmConfText);
        SlurmConfBlock.Rendered block = SlurmConfBlock.render(plan, adminLines, layout);
        files.add(new DesiredFile(
                layout.slurmConf(),
                ManagedBlock.replace(layout.slurmConf().toString(), slurmConfText, block.lines()),
                false));

        Path plugstack = block.plugstackConf();
        Path snippetDir = plugstack.resolveSibling("plugstack.conf.d");
        files.add(plugstackInclude(plugstack, snippetDir, layout));
        List<String> notes = new ArrayList<>(block.notes());
        if (layout.packaged()) {
            notes.add("the plugin (" + layout.plugin() + "), its plugstack.conf.d snippet and the units in "
                    + layout.systemdDir() + " are the slurm-autoresume packages': left to them");
        } else {
            files.add(new DesiredFile(
                    snippetDir.resolve(PLUGSTACK_SNIPPET),
                    "optional " + layout.plugin() + " supervisor=" + layout.autoresume() + "\n",
                    false));
        }

        if (node.role() == Role.COMPUTE) {
            if (!layout.packaged()) {
                files.add(unit(AGENT_UNIT, layout));
            }
            units.add(AGENT_UNIT);
            if (plan.site().healthCheckSeconds() > 0) {
                files.add(new DesiredFile(layout.healthCheckWrapper(), healthWrapper(layout), true));
            }
        }
        if (node.role() == Role.CONTROLLER) {
            if (!layout.packaged()) {
                files.add(unit(SWEEP_SERVICE, layout));
                files.add(unit(SWEEP_TIMER, layout));
            }
            units.add(SWEEP_TIMER);
        }
        return new Setup(files, notes, units);
    }

    /** plugstack.conf must include the snippet directory; an include the admin already has is enough. */
    private static DesiredFile plugstackInclude(Path plugstack, Path snippetDir, InstallLayout layout) {
        String text = Applier.read(layout.under(plugstack)).orElse("");
        List<String> admin = ManagedBlock.outside(plugstack.toString(), text);
        boolean included = admin.stream()
                .map(String::strip)
                .anyMatch(l -> l.startsWith("include ")
                        && l.substring("include ".length()).strip().startsWith(snippetDir + "/"));
        List<String> body = included ? List.of() : List.of("include " + snippetDir + "/*.conf");
        return new DesiredFile(plugstack, ManagedBlock.replace(plugstack.toString(), text, body), false);
    }

    private static DesiredFile unit(String name, InstallLayout layout) {
        String template = resource("systemd/" + name);
        return new DesiredFile(
                layout.systemdDir().resolve(name),
                template.replace(INSTALLED_COMMAND, layout.autoresume().toString()),
                false);
    }

    private static String healthWrapper(InstallLayout layout) {
        return "#!/bin/sh\n"
                + "# HealthCheckProgram of slurmd, written by `autoresume lifecycle apply`. Slurm runs a program\n"
                + "# without arguments, so this wrapper adds them: check this node, mark it if unhealthy.\n"
                + "exec " + layout.autoresume() + " health --mark\n";
    }

    private static String resource(String name) {
        try (InputStream in = NodeSetup.class.getResourceAsStream("/org/slurmautoresume/lifecycle/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name + " (a packaging bug)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
