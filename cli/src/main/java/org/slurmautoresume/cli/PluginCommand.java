package org.slurmautoresume.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.nodeops.health.ToolLocator;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.plugin.PluginCheck;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "plugin",
        mixinStandardHelpOptions = true,
        description = {
            "Say whether srun on this node loads the auto_resume.so its plugstack lists (slurm.conf's"
                    + " PlugStackConfig, else plugstack.conf beside slurm.conf, with its include files).",
            "A SPANK plugin loads only into the Slurm release it was built for: after a Slurm upgrade, srun skips an"
                    + " `optional` plugin built for the old release and refuses --auto-resume=1 as an unknown option."
                    + " This reads the release the file was built for (its plugin_version) and names what to rebuild."
                    + " install.sh runs it; `autoresume health` and the agent at start check the same."
        },
        footer = {
            "",
            "Exit status: 0 every auto_resume.so listed loads; 1 one does not; 3 none is listed;"
                    + " 5 scontrol (for the running release) is not found or does not answer."
        })
final class PluginCommand implements Callable<Integer> {

    private static final Duration SCONTROL_TIMEOUT = Duration.ofSeconds(30);

    private final CliContext context;

    @Spec
    private CommandSpec spec;

    @Option(names = "--json", description = "Print the checks as JSON with stable field names.")
    private boolean json;

    @Option(
            names = "--plugin",
            paramLabel = "FILE",
            description = "Check this plugin file instead of the plugstack's (install.sh checks the one it installed).")
    private Path plugin;

    PluginCommand(CliContext context) {
        this.context = context;
    }

    /**
     * This node's scontrol, found on the command's PATH, for the running release (`--version` is
     * answered locally, without slurmctld); empty when there is none.
     */
    static Optional<SlurmClient> localScontrol(CliContext context, ToolLocator tools) {
        return tools.find("scontrol")
                .map(scontrol -> new SlurmClient(context.runner(), scontrol.toString(), SCONTROL_TIMEOUT));
    }

    /**
     * The checks of this node's listed auto_resume.so, for commands that report them beside their
     * own work (health, the sweep): none when there is no scontrol or no plugin listed, or when the
     * check itself cannot be made (said as a warning, never their failure).
     */
    static List<PluginCheck> beside(CliContext context, ToolLocator tools) {
        Optional<Path> scontrol = tools.find("scontrol");
        if (scontrol.isEmpty()) {
            return List.of();
        }
        try {
            // The client, and the retrying runner under it, only where a plugstack lists the
            // plugin: a node without it (and every health run there) never asks the release.
            return PluginCheck.ofNode(
                    context.environment(),
                    () -> context.launcherRelease()
                            .orElseGet(() -> new SlurmClient(
                                            context.runner(), scontrol.get().toString(), SCONTROL_TIMEOUT)
                                    .version()));
        } catch (SlurmException | IOException e) {
            LoggerFactory.getLogger(PluginCommand.class)
                    .warn("cannot tell whether auto_resume.so loads here: {}", e.getMessage());
            return List.of();
        }
    }

    /** One line: what is wrong and what to rebuild, or where the plugin is and that it loads. */
    static String describe(PluginCheck check) {
        return check.problem()
                .orElse(check.plugin() + " (built for Slurm " + check.builtFor().orElseThrow() + ", listed in "
                        + check.listedIn() + ") loads into Slurm " + check.running());
    }

    @Override
    public Integer call() {
        SlurmClient slurm = localScontrol(context, ToolLocator.fromEnvironment(context.environment()))
                .orElseThrow(() -> new CliException(
                        ExitCode.SLURM_UNAVAILABLE, "scontrol is not on PATH: cannot tell the Slurm release here"));
        List<PluginCheck> checks;
        try {
            checks = plugin != null
                    ? List.of(PluginCheck.of(plugin.toAbsolutePath(), Path.of("--plugin"), slurm.version()))
                    : PluginCheck.ofNode(context.environment(), slurm::version);
        } catch (IOException e) {
            throw new CliException(ExitCode.FAILED, "cannot read this node's plugstack: " + e.getMessage(), e);
        } catch (SlurmException e) {
            throw new CliException(
                    ExitCode.SLURM_UNAVAILABLE, "cannot tell the Slurm release here: " + e.getMessage(), e);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(
                    Json.write(checks.stream().map(HealthView.PluginView::of).toList()));
        } else if (checks.isEmpty()) {
            out.println("no auto_resume.so is listed in this node's plugstack");
        } else {
            checks.forEach(check -> out.println(describe(check)));
        }
        out.flush();
        if (checks.isEmpty()) {
            return ExitCode.NOT_FOUND.code();
        }
        return checks.stream().allMatch(PluginCheck::loads) ? ExitCode.OK.code() : ExitCode.FAILED.code();
    }
}
