package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.nodeops.health.CheckResult;
import org.slurmautoresume.nodeops.health.DiskDrain;
import org.slurmautoresume.nodeops.health.GresGpus;
import org.slurmautoresume.nodeops.health.HealthChecks;
import org.slurmautoresume.nodeops.health.HealthContext;
import org.slurmautoresume.nodeops.health.HealthReport;
import org.slurmautoresume.nodeops.health.HealthSettings;
import org.slurmautoresume.nodeops.health.LocalNode;
import org.slurmautoresume.nodeops.health.NodeMarker;
import org.slurmautoresume.nodeops.health.ToolLocator;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.plugin.PluginCheck;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "health",
        mixinStandardHelpOptions = true,
        description = {
            "Check this node's hardware: GPUs (nvidia-smi, Xid errors), DCGM, Neuron devices, EFA,"
                    + " CPU (stress-ng) and disks.",
            "Each check PASSED, FAILED or SKIPPED (its tool or device is not here); a failure asks for an action:"
                    + " REBOOT (a reset clears it), REPLACE (the hardware is bad), FREE_SPACE (a filesystem is short of"
                    + " space or inodes) or NONE (a person must look).",
            "With --mark, as Slurm's HealthCheckProgram, a failing node is set"
                    + " state=fail reason=Action:Replace|Action:Reboot, or drained. A full filesystem drains a node in"
                    + " service with reason \"" + DiskDrain.PREFIX + "MOUNT N%% used\" (running jobs finish, none"
                    + " start); the next --mark run that finds every filesystem it names fine resumes the node, but"
                    + " only while that drain is still the check's own: same reason, set by this user, the node drained"
                    + " and nothing more. An administrator's or NHC's drain is never overwritten and never lifted.",
            "It also says whether the auto_resume.so this node's plugstack lists loads into the Slurm here: after a"
                    + " Slurm upgrade a plugin built for the old release is skipped and --auto-resume=1 is refused, so it"
                    + " names what to rebuild (software: never a failure, never marked)."
        },
        footer = {
            "",
            "Exit status: 0 every check passed or was skipped; 7 a check failed and the node needs"
                    + " replacing (or a person); 8 checks failed and a reboot should fix them all (the sweep's"
                    + " healthCommand reads 8 as reboot); 9 only filesystems short of space or inodes: space must be"
                    + " freed, nothing else; 2 usage; 4 marking, reading or resuming the node failed; 5 scontrol not"
                    + " found for --mark."
        })
final class HealthCommand implements Callable<Integer> {

    private static final Duration SCONTROL_TIMEOUT = Duration.ofSeconds(30);

    private final CliContext context;

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--check",
            paramLabel = "NAME",
            split = ",",
            description = "Run only these checks (gpu, dcgm, neuron, efa, cpu, disk); repeatable. Default: all.")
    private List<String> checks = new ArrayList<>();

    @Option(
            names = "--on-request",
            description = "Run only the checks that read the node's state, as for a check a user's request asked for"
                    + " on a node other jobs may share: DCGM's health watches but not its diagnostic, EFA without the"
                    + " --efa-probe, no CPU stress (SKIPPED). Also on when " + HealthChecks.ON_REQUEST_VARIABLE + "="
                    + HealthChecks.ON_REQUEST
                    + " is set, as `autoresume agent` sets it for its --health-command.")
    private boolean onRequest;

    @Option(names = "--json", description = "Print the report as JSON with stable field names.")
    private boolean json;

    @Option(
            names = {"-v", "--verbose"},
            description = "Print the evidence of every check, not only failed ones.")
    private boolean verbose;

    @Option(
            names = "--expected-gpus",
            paramLabel = "N",
            description =
                    "GPUs this node must have. Default: the gpu count of the node's Gres in Slurm, else not compared.")
    private Integer expectedGpus;

    @Option(
            names = "--mark",
            description = "On failure, mark this node in Slurm: state=fail with"
                    + " reason=Action:Replace or Action:Reboot (the worst action), or drain when the failure needs a person"
                    + " or a filesystem is full. When the disk check passes, lift this check's own disk-full drain.")
    private boolean mark;

    @Option(names = "--dry-run", description = "With --mark: print the scontrol command instead of running it.")
    private boolean dryRun;

    @Option(
            names = "--node",
            paramLabel = "NAME",
            description = "This node's Slurm name. Default: SLURMD_NODENAME, else the short host name.")
    private String node;

    @Option(
            names = "--mount",
            paramLabel = "PATH",
            description = "A mount point that must be present, read-write, writable and not full; repeatable."
                    + " Default: /.")
    private List<Path> mounts = new ArrayList<>();

    @Option(
            names = "--min-free-percent",
            paramLabel = "P",
            defaultValue = "5",
            description = "Fail the disk check below this share of free space, or of free inodes, on any mount point"
                    + " (default: ${DEFAULT-VALUE}; 0: never).")
    private int minFreePercent = 5;

    @Option(
            names = "--cpu-seconds",
            paramLabel = "S",
            defaultValue = "10",
            description = "How long stress-ng runs (default: ${DEFAULT-VALUE}).")
    private int cpuSeconds = 10;

    @Option(
            names = "--dcgm-diag-level",
            paramLabel = "L",
            defaultValue = "1",
            description = "dcgmi diag -r level, 1 to 4 (default: ${DEFAULT-VALUE}; 2 and up take minutes).")
    private int dcgmDiagLevel = 1;

    @Option(
            names = "--efa-probe",
            paramLabel = "PROGRAM",
            description = "A site program that exits 0 when EFA traffic flows (run without arguments).")
    private String efaProbe;

    @Option(
            names = "--sysfs-root",
            paramLabel = "DIR",
            defaultValue = "/sys",
            description = "Where sysfs is mounted (default: ${DEFAULT-VALUE}; another root for containers and tests).")
    private Path sysfsRoot = Path.of("/sys");

    @Option(
            names = "--kernel-log",
            paramLabel = "DEVICE",
            defaultValue = "/dev/kmsg",
            description =
                    "The kernel's log device, read first for Xid reports (default: ${DEFAULT-VALUE}; root only)."
                            + " When it cannot be opened, or with '-', `dmesg --kernel` and then `journalctl -k` are read instead.")
    private String kernelLog = "/dev/kmsg";

    @Option(names = "--mounts-file", paramLabel = "FILE", defaultValue = "/proc/mounts", hidden = true)
    private Path mountsFile = Path.of("/proc/mounts");

    HealthCommand(CliContext context) {
        this.context = context;
    }

    /*
     * The fields above start with their options' default values, so that FastPath, which sets
     * no defaults, holds what picocli would (a unit test compares every field).
     */

    /**
     * {@code health} with these {@code --check} names (none: every check), {@code --on-request}
     * and {@code --mark} or without, every other option at its default, for {@link FastPath}.
     */
    static HealthCommand checking(CliContext context, List<String> checks, boolean onRequest, boolean mark) {
        HealthCommand command = new HealthCommand(context);
        command.checks.addAll(checks);
        command.onRequest = onRequest;
        command.mark = mark;
        return command;
    }

    @Override
    public Integer call() {
        return call(spec.commandLine().getOut());
    }

    int call(PrintWriter out) {
        HealthSettings settings = settings();
        boolean requested = onRequest
                || HealthChecks.ON_REQUEST.equals(context.environment().get(HealthChecks.ON_REQUEST_VARIABLE));
        HealthChecks registry = requested ? HealthChecks.onRequest() : HealthChecks.standard();
        for (String name : checks) {
            if (!registry.names().contains(name)) {
                throw new CliException(
                        ExitCode.USAGE,
                        "no health check called \"" + name + "\"; known: " + String.join(", ", registry.names()));
            }
        }
        ToolLocator tools = ToolLocator.fromEnvironment(context.environment());
        Optional<String> nodeName = node != null ? Optional.of(node) : LocalNode.name(context.environment());
        HealthContext healthContext = new HealthContext(
                context.toolRunner(),
                tools,
                settings,
                () -> gpusFromSlurm(tools, nodeName),
                kernelLog.equals("-") ? Optional.empty() : Optional.of(Path.of(kernelLog)));
        HealthReport report = checks.isEmpty() ? registry.run(healthContext) : registry.run(healthContext, checks);

        Marked marked = null;
        CliException markFailure = null;
        if (mark) {
            try {
                marked = mark(tools, nodeName, report, settings);
            } catch (CliException e) {
                markFailure = e;
            }
        }
        render(out, nodeName.orElse(null), report, marked, PluginCommand.beside(context, tools));
        if (markFailure != null) {
            throw markFailure;
        }
        if (!report.failed()) {
            return ExitCode.OK.code();
        }
        return switch (report.worstAction()) {
            case REBOOT -> ExitCode.UNHEALTHY_REBOOT.code();
            case FREE_SPACE -> ExitCode.UNHEALTHY_FREE_SPACE.code();
            case NONE, REPLACE -> ExitCode.UNHEALTHY.code();
        };
    }

    private HealthSettings settings() {
        if (expectedGpus != null && expectedGpus < 0) {
            throw new CliException(ExitCode.USAGE, "--expected-gpus must not be negative: " + expectedGpus);
        }
        if (cpuSeconds < 1) {
            throw new CliException(ExitCode.USAGE, "--cpu-seconds must be at least 1: " + cpuSeconds);
        }
        try {
            return HealthSettings.defaults()
                    .withExpectedGpus(expectedGpus == null ? OptionalInt.empty() : OptionalInt.of(expectedGpus))
                    .withSysfsRoot(sysfsRoot)
                    .withMounts(mountsFile, mounts.isEmpty() ? List.of(Path.of("/")) : mounts, minFreePercent)
                    .withCpuStress(Duration.ofSeconds(cpuSeconds))
                    .withEfaProbe(efaProbe == null ? List.of() : List.of(efaProbe))
                    .withDcgmDiagLevel(dcgmDiagLevel);
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, e.getMessage(), e);
        }
    }

    /** Slurm's gpu Gres for this node, asked only when scontrol is on PATH; any failure means "unknown". */
    private OptionalInt gpusFromSlurm(ToolLocator tools, Optional<String> nodeName) {
        Optional<Path> scontrol = tools.find("scontrol");
        if (scontrol.isEmpty() || nodeName.isEmpty()) {
            return OptionalInt.empty();
        }
        try {
            SlurmClient slurm = new SlurmClient(
                    context.runner(), scontrol.get().toString(), SCONTROL_TIMEOUT, context.slurmFormat());
            return GresGpus.ofNode(slurm, nodeName.get());
        } catch (SlurmException e) {
            LoggerFactory.getLogger(HealthCommand.class).warn("GPU count from Slurm unknown: {}", e.getMessage());
            return OptionalInt.empty();
        }
    }

    /** What --mark planned for the node and the command it ran (or would run, with --dry-run), when one. */
    record Marked(NodeMarker.Update update, String command) {}

    /**
     * Marks a failing node, or lifts the disk check's own drain after a passing run. A passing run
     * never fails for want of a node name, scontrol or the node's state: it only had something to
     * lift, and the node is healthy.
     */
    private Marked mark(ToolLocator tools, Optional<String> nodeName, HealthReport report, HealthSettings settings) {
        boolean lifting = !report.failed();
        if (lifting && !NodeMarker.readsNode(report)) {
            return null;
        }
        if (nodeName.isEmpty() && lifting) {
            return null;
        }
        String name = nodeName.orElseThrow(() -> new CliException(
                ExitCode.USAGE, "--mark needs this node's name: set --node, or run under slurmd (SLURMD_NODENAME)"));
        Optional<Path> scontrol = tools.find("scontrol");
        if (scontrol.isEmpty() && lifting) {
            return null;
        }
        NodeMarker marker = new NodeMarker(
                context.runner(),
                scontrol.orElseThrow(() ->
                        new CliException(ExitCode.SLURM_UNAVAILABLE, "--mark needs scontrol, which is not on PATH")),
                context.caller().name(),
                context.slurmFormat());
        NodeMarker.Update update;
        try {
            update = marker.plan(name, report, settings.mounts());
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, e.getMessage(), e);
        } catch (SlurmException e) {
            if (lifting) {
                LoggerFactory.getLogger(HealthCommand.class)
                        .warn(
                                "node {} not read, so no drain of the disk check" + " was looked for: {}",
                                name,
                                e.getMessage());
                return null;
            }
            throw new CliException(
                    ExitCode.SLURM_FAILED, "could not read node " + name + " before marking it: " + e.getMessage(), e);
        }
        if (dryRun) {
            List<String> argv = marker.argv(update);
            return new Marked(update, argv.isEmpty() ? null : String.join(" ", argv));
        }
        try {
            return new Marked(update, marker.apply(update).orElse(null));
        } catch (CommandException e) {
            throw new CliException(
                    ExitCode.SLURM_FAILED,
                    "could not " + (lifting ? "resume" : "mark") + " node " + name + ": " + e.getMessage(),
                    e);
        }
    }

    private void render(
            PrintWriter out, String nodeName, HealthReport report, Marked marked, List<PluginCheck> plugins) {
        if (json) {
            out.println(Json.write(HealthView.of(nodeName, report, marked, dryRun, plugins)));
            out.flush();
            return;
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"CHECK", "STATUS", "ACTION", "SUMMARY"});
        for (CheckResult result : report.results()) {
            rows.add(new String[] {
                result.check(),
                result.status().name(),
                result.failed() ? result.action().name() : "-",
                result.summary()
            });
        }
        Table.print(out, rows);
        for (CheckResult result : report.results()) {
            if ((verbose || result.failed()) && !result.evidence().isEmpty()) {
                out.println();
                out.println(result.check() + ":");
                result.evidence().forEach(line -> out.println("  " + line));
            }
        }
        for (PluginCheck plugin : plugins) {
            out.println();
            out.println("spank plugin: " + PluginCommand.describe(plugin));
        }
        out.println();
        String who = nodeName == null ? "this node" : nodeName;
        out.println(who + ": " + report.status() + (report.failed() ? ", action " + report.worstAction() : ""));
        if (marked != null) {
            NodeMarker.Update update = marked.update();
            if (marked.command() != null) {
                String done = update.kind() == NodeMarker.Update.Kind.RESUME ? "resumed: " : "marked: ";
                out.println((dryRun ? "would run: " : done)
                        + marked.command()
                        + (update.kind() == NodeMarker.Update.Kind.RESUME ? " (" + update.why() + ")" : ""));
            } else if (update.kind() == NodeMarker.Update.Kind.LEAVE_ALONE) {
                out.println("left alone: " + update.why());
            }
        }
        out.flush();
    }
}
