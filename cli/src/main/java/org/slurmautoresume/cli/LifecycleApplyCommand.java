package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slurmautoresume.configfile.ConfigProblem;
import org.slurmautoresume.lifecycle.apply.FileChange;
import org.slurmautoresume.lifecycle.apply.InstallLayout;
import org.slurmautoresume.lifecycle.apply.LifecycleApply;
import org.slurmautoresume.lifecycle.apply.LocalHost;
import org.slurmautoresume.lifecycle.validate.ConfigValidator;
import org.slurmautoresume.lifecycle.validate.ValidationReport;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "apply",
        mixinStandardHelpOptions = true,
        description = {
            "Find this node's role (controller, login, compute) in resource_config.json and write what"
                    + " it needs: the managed block of slurm.conf (nodes, partitions, spare partition,"
                    + " permit_job_expansion, health check), the plugin's plugstack line, and the agent or sweep"
                    + " systemd units. Idempotent; --dry-run prints a unified diff per file and writes nothing.",
            "The files are validated first; any error stops apply (exit 78)."
        })
final class LifecycleApplyCommand implements Callable<Integer> {

    private final LocalHost host;

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--provisioning",
            required = true,
            paramLabel = "FILE",
            description = "provisioning_parameters.json")
    private Path provisioning;

    @Option(names = "--resource-config", required = true, paramLabel = "FILE", description = "resource_config.json")
    private Path resourceConfig;

    @ArgGroup(exclusive = true)
    private Which which = new Which();

    static final class Which {
        @Option(names = "--node", paramLabel = "NAME", description = "This node's instance or Slurm node name.")
        String node;

        @Option(names = "--address", paramLabel = "IP", description = "This node's address in resource_config.json.")
        String address;
    }

    @Option(
            names = "--root",
            paramLabel = "DIR",
            defaultValue = "/",
            description = "Write under DIR instead of / (default: ${DEFAULT-VALUE}).")
    private Path root;

    @Option(
            names = "--slurm-conf",
            paramLabel = "PATH",
            defaultValue = "/etc/slurm/slurm.conf",
            description = "slurm.conf on this node (default: ${DEFAULT-VALUE}).")
    private Path slurmConf;

    @Option(names = "--dry-run", description = "Print what would change as unified diffs; write nothing.")
    private boolean dryRun;

    @Option(names = "--json", description = "Print the node, its role and each file's status and diff as JSON.")
    private boolean json;

    LifecycleApplyCommand(CliContext context) {
        this.host = context.localHost();
    }

    @Override
    public Integer call() {
        ValidationReport report = ConfigValidator.validate(provisioning, Optional.of(resourceConfig), Optional.empty());
        PrintWriter err = spec.commandLine().getErr();
        report.warnings()
                .forEach(w -> err.println("autoresume: warning: " + w.file() + ": " + w.path() + ": " + w.message()));
        if (!report.ok()) {
            for (ConfigProblem p : report.errors()) {
                err.println("autoresume: error: " + p.file() + ": " + p.path() + ": " + p.message() + " (fix: "
                        + p.fix() + ")");
            }
            throw new CliException(
                    ExitCode.CONFIG_INVALID,
                    report.errors().size() + " error(s) in the configuration; nothing was written");
        }
        if (!slurmConf.isAbsolute()) {
            throw new CliException(ExitCode.USAGE, "--slurm-conf must be an absolute path on the node: " + slurmConf);
        }
        LifecycleApply.Result result = LifecycleApply.run(
                report.provisioning().orElseThrow(),
                report.resourceConfig().orElseThrow(),
                new LifecycleApply.Selector(Optional.ofNullable(which.node), Optional.ofNullable(which.address), host),
                InstallLayout.forInstallation(
                        root.toAbsolutePath(),
                        slurmConf,
                        Optional.ofNullable(System.getProperty("autoresume.home"))
                                .map(LifecycleApplyCommand::canonical)),
                dryRun);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Map<String, Object> view = new LinkedHashMap<>();
            view.put("node", result.node().nodeName());
            view.put("role", result.node().role().name().toLowerCase(java.util.Locale.ROOT));
            view.put("dryRun", dryRun);
            view.put("changed", result.changed());
            view.put("files", result.changes());
            view.put("notes", result.notes());
            view.put("unitsToEnable", result.unitsToEnable());
            out.println(Json.write(view));
        } else {
            render(out, result);
        }
        out.flush();
        return ExitCode.OK.code();
    }

    private void render(PrintWriter out, LifecycleApply.Result result) {
        out.println("node " + result.node().nodeName() + " (" + result.node().instanceName() + "), role "
                + result.node().role().name().toLowerCase(java.util.Locale.ROOT));
        result.notes().forEach(n -> out.println("note: " + n));
        for (FileChange change : result.changes()) {
            if (!change.changed()) {
                continue;
            }
            String verb = change.status() == FileChange.Status.CREATED ? "create" : "update";
            if (dryRun) {
                out.println("would " + verb + " " + change.path());
                out.print(change.diff());
            } else {
                out.println(verb + "d " + change.path());
            }
        }
        if (!result.changed()) {
            out.println("no changes");
        } else if (!dryRun && !result.unitsToEnable().isEmpty()) {
            out.println("next: systemctl daemon-reload && systemctl enable --now "
                    + String.join(" ", result.unitsToEnable())
                    + "; scontrol reconfigure (or restart slurmctld/slurmd)");
        }
    }

    /**
     * The installation's home as Slurm's configuration should name it: the launcher passes the
     * path it was started by, which a symlinked parent directory leaves short of the real one.
     */
    private static Path canonical(String home) {
        Path path = Path.of(home);
        try {
            return path.toRealPath();
        } catch (java.io.IOException e) {
            return path;
        }
    }
}
