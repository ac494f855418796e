package org.slurmautoresume.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slurmautoresume.nodeops.health.LocalNode;
import org.slurmautoresume.nodeops.health.ToolLocator;
import org.slurmautoresume.nodeops.sweep.Sweep;
import org.slurmautoresume.nodeops.sweep.SweepLock;
import org.slurmautoresume.nodeops.sweep.SweepPlan;
import org.slurmautoresume.nodeops.sweep.SweepPolicy;
import org.slurmautoresume.nodeops.sweep.SweepPolicyException;
import org.slurmautoresume.nodeops.sweep.SweepPolicyLoader;
import org.slurmautoresume.nodeops.sweep.SweepReport;
import org.slurmautoresume.slurm.plugin.PluginCheck;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "sweep",
        mixinStandardHelpOptions = true,
        description = {
            "Find nodes and jobs stuck after failures and repair them, within safety caps: one pass,"
                    + " for cron or a systemd timer.",
            "Repairs: FAIL/Action:Replace too long (escalate to down once no job is on it), down* too long"
                    + " (mark Action:Replace),"
                    + " a node back under its hostname or unexpectedly rebooted (health check, then resume),"
                    + " COMPLETING too long (drain while other jobs run there, down once none does), a pending expansion donor whose job has ended (scancel);"
                    + " reports drained nodes with no reason, emptied donor records slurmctld still keeps and"
                    + " running jobs named like donors (never acted on by name)."
        },
        footer = {
            "",
            "Exit status: 0 nothing to do, 10 acted (or would, with --dry-run), 11 actions held back by"
                    + " the caps, 12 another sweep holds the lock, 13 an action failed, 2 bad option or policy file,"
                    + " 4/5/6 Slurm failed/unavailable/timed out, 70 internal error."
        })
final class SweepCommand implements Callable<Integer> {

    private final CliContext context;

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--policy",
            paramLabel = "FILE",
            description =
                    "Policy file, JSON or YAML (.yaml/.yml);" + " default: the built-in defaults (see docs/admin.md).")
    private Path policyFile;

    @Option(names = "--dry-run", description = "Print the plan and change nothing (takes no lock).")
    private boolean dryRun;

    @Option(names = "--json", description = "Print the report as JSON with stable field names.")
    private boolean json;

    @Option(
            names = "--lock",
            paramLabel = "FILE",
            description = "Lock file; default /run/autoresume/sweep.lock."
                    + " Its folder must be root's (or yours) and writable by nobody else; a link is refused.")
    private Path lockFile;

    @Option(
            names = "--textfile",
            paramLabel = "FILE",
            description = "Also write the pass as Prometheus metrics for"
                    + " node_exporter's textfile collector (a name ending in .prom in its directory, e.g."
                    + " /var/lib/prometheus/node-exporter/autoresume_sweep.prom): status, actions by kind and result, actions"
                    + " held back, findings, leftover jobs, when it ran (docs/metrics.md). Replaced whole at each pass;"
                    + " not written by --dry-run.")
    private Path textfile;

    SweepCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        if (textfile != null && !textfile.getFileName().toString().endsWith(".prom")) {
            throw new CliException(
                    ExitCode.USAGE,
                    "--textfile: node_exporter's textfile collector reads only *.prom" + " files, not " + textfile);
        }
        SweepPolicy policy;
        try {
            policy = policyFile == null ? SweepPolicy.DEFAULTS : SweepPolicyLoader.load(policyFile);
        } catch (SweepPolicyException e) {
            throw new CliException(ExitCode.USAGE, e.getMessage(), e);
        }
        Sweep sweep = Sweep.forPolicy(context.slurm(), context.runner(), policy, context::now);
        PrintWriter out = spec.commandLine().getOut();
        SweepReport report;
        try {
            report = sweep.run(policy, dryRun, lockFile == null ? SweepLock.defaultPath() : lockFile);
        } catch (SweepLock.BusyException e) {
            if (json) {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("status", "lock-busy");
                doc.put("holder", e.holder());
                out.println(Json.write(doc));
                out.flush();
            }
            spec.commandLine().getErr().println("autoresume: " + e.getMessage());
            spec.commandLine().getErr().flush();
            writeTextfile(SweepTextfile.lockBusy(Instant.now()));
            return ExitCode.SWEEP_LOCK_BUSY.code();
        } catch (UncheckedIOException e) {
            throw new CliException(ExitCode.FAILED, e.getMessage(), e);
        }
        report = withPluginFindings(report);
        writeTextfile(SweepTextfile.of(report, Instant.now()));
        if (json) {
            out.println(Json.write(report));
        } else {
            SweepText.print(out, report);
        }
        out.flush();
        return exitCode(report.statusValue()).code();
    }

    /**
     * The sweep's host runs srun too where it is a login node: an auto_resume.so its plugstack lists
     * that will not load into the Slurm here (built for another release) is reported, never acted on.
     */
    private SweepReport withPluginFindings(SweepReport report) {
        List<PluginCheck> checks = PluginCommand.beside(context, ToolLocator.fromEnvironment(context.environment()));
        if (checks.stream().allMatch(PluginCheck::loads)) {
            return report;
        }
        String host = LocalNode.name(context.environment()).orElse("this host");
        List<SweepPlan.Finding> findings = new ArrayList<>(report.findings());
        for (PluginCheck check : checks) {
            check.problem().ifPresent(problem -> findings.add(new SweepPlan.Finding(PLUGIN_FINDING, host, problem)));
        }
        return new SweepReport(
                report.time(),
                report.dryRun(),
                report.nodesSeen(),
                report.jobsSeen(),
                report.status(),
                report.actions(),
                report.heldBack(),
                findings,
                report.unreadableJobs(),
                report.leftoverJobs());
    }

    /** The pass's metrics into --textfile, if given and not a dry run; a failure to write is said, not fatal. */
    private void writeTextfile(String metrics) {
        if (textfile == null || dryRun) {
            return;
        }
        try {
            SweepTextfile.write(textfile, metrics);
        } catch (IOException | RuntimeException e) {
            spec.commandLine()
                    .getErr()
                    .println("autoresume: --textfile " + textfile + " not written: " + e.getMessage());
            spec.commandLine().getErr().flush();
        }
    }

    /** The finding's kind: an auto_resume.so listed on the sweep's host that srun will not load. */
    static final String PLUGIN_FINDING = "spank-plugin-will-not-load";

    static ExitCode exitCode(SweepReport.Status status) {
        return switch (status) {
            case NOTHING_TO_DO -> ExitCode.OK;
            case ACTED -> ExitCode.SWEEP_ACTED;
            case HELD_BACK -> ExitCode.SWEEP_HELD_BACK;
            case FAILED -> ExitCode.SWEEP_ACTION_FAILED;
        };
    }
}
