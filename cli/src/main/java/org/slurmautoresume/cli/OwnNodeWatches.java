package org.slurmautoresume.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.slurmautoresume.agent.server.AgentMetrics;
import org.slurmautoresume.agent.server.AuditLog;
import org.slurmautoresume.agent.server.NodeCheckWatch;
import org.slurmautoresume.agent.server.NodeVerdict;
import org.slurmautoresume.agent.server.NodeXidWatch;
import org.slurmautoresume.agent.server.OwnMarkOutageLog;
import org.slurmautoresume.agent.server.OwnNodeMarker;
import org.slurmautoresume.agent.server.XidResponder;
import org.slurmautoresume.nodeops.health.DcgmCheck;
import org.slurmautoresume.nodeops.health.GpuCheck;
import org.slurmautoresume.nodeops.health.GresGpus;
import org.slurmautoresume.nodeops.health.HealthContext;
import org.slurmautoresume.nodeops.health.HealthSettings;
import org.slurmautoresume.nodeops.health.LocalNode;
import org.slurmautoresume.nodeops.health.SlurmdCheck;
import org.slurmautoresume.nodeops.health.ToolLocator;
import org.slurmautoresume.nodeops.xid.XidWatch;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.exec.ControllerOutage;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import picocli.CommandLine.Option;

/**
 * The agent's watch over its own node (a picocli mixin of {@code autoresume agent}): which node it
 * is, the kernel log's Xids, the periodic GPU checks, and the one marker both take the node out
 * of service with.
 */
final class OwnNodeWatches {

    @Option(
            names = "--node",
            paramLabel = "NAME",
            description = "The Slurm name of the node this agent runs on, which its Xid watch marks. Default:"
                    + " SLURMD_NODENAME, else the short host name.")
    private String node;
    /** Made once, when the Xid watch or the GPU checks first need it. */
    private OwnNodeMarker ownNodeMarker;

    @Option(
            names = "--xid-source",
            paramLabel = "auto|off|PATH",
            defaultValue = NodeXidWatch.AUTO,
            description = "Watch this node's kernel log for NVIDIA Xid errors and mark the node fail at once on a"
                    + " reset-class one (reason Action:Reboot) or an isolate-class one (Action:Replace); other Xids are"
                    + " counted and logged. auto (default): /dev/kmsg when the NVIDIA driver is loaded, else no watch;"
                    + " off: no watch; /dev/kmsg; or a file of kernel records owned and writable by root alone (a"
                    + " simulated node's kernel log). docs/health-checks.md explains the table and the guards.")
    private String xidSource;

    @Option(
            names = "--controller-outage",
            paramLabel = "SECONDS",
            defaultValue = "180",
            description = "How long a mark of this node after its own finding (an Xid, a failed GPU check) keeps"
                    + " trying while slurmctld does not answer (a restart, an upgrade, a failover to the backup), with"
                    + " jittered back-off: set it to the cluster's SlurmctldTimeout plus a minute. 0: one try."
                    + " Default: ${DEFAULT-VALUE}.")
    private int controllerOutageSeconds;

    @Option(
            names = "--gpu-check-every",
            paramLabel = "SECONDS",
            defaultValue = "60",
            description = "Run the GPU checks of `autoresume health` that do not disturb a job (nvidia-smi: GPU count"
                    + " against the node's gpu Gres, uncorrected ECC, pending page retirement, row remapping; `dcgmi health"
                    + " -c`, no diag) every SECONDS, and mark the node fail when one finds a fault that a reboot"
                    + " (Action:Reboot) or a replacement (Action:Replace) fixes and a second run 5 s later finds it again."
                    + " Nothing runs where neither nvidia-smi nor dcgmi is found. 0: never. Default: ${DEFAULT-VALUE}.")
    private int gpuCheckEverySeconds;

    @Option(
            names = "--slurmd-check-every",
            paramLabel = "SECONDS",
            defaultValue = "30",
            description = "Ask this node's slurmd for its status (`scontrol show slurmd`) every SECONDS, and mark the"
                    + " node fail (Action:Reboot) when it stops answering and a second ask 5 s later gets no answer"
                    + " either: a stopped or wedged slurmd still accepts connections, starts no new step, and is found"
                    + " by slurmctld only at SlurmdTimeout, when it sets the node DOWN and kills its jobs. Only a slurmd"
                    + " that answered once since the agent started counts. 0: never. Default: ${DEFAULT-VALUE}.")
    private int slurmdCheckEverySeconds;

    @Option(
            names = "--gpu-tools",
            paramLabel = "DIR",
            description = "Look for nvidia-smi and dcgmi in DIR before PATH (a simulated node's stand-ins:"
                    + " `local-cluster.sh gpu-tools NODE`). Default: PATH only.")
    private Path gpuTools;

    /** Where the Xid watch looks up this node's PCI devices: tests point it at a tree with a GPU in it. */
    @Option(names = "--sysfs-root", paramLabel = "DIR", defaultValue = "/sys", hidden = true)
    private Path sysfsRoot;

    Optional<XidWatch> startXidWatch(CliContext context, AuditLog audit, AgentMetrics metrics, NodeVerdict verdict) {
        if (NodeXidWatch.resolve(xidSource).isEmpty()) {
            return Optional.empty();
        }
        OwnNodeMarker marker = ownNodeMarker(context, "--xid-source", metrics, verdict);
        try {
            Optional<XidWatch> watch =
                    NodeXidWatch.start(xidSource, sysfsRoot, new XidResponder(marker, audit, metrics));
            watch.ifPresent(w -> metrics.followKernelLog(w::lastSequence));
            return watch;
        } catch (IOException e) {
            throw new CliException(ExitCode.USAGE, "--xid-source: " + e.getMessage(), e);
        }
    }

    Optional<NodeCheckWatch> startGpuWatch(
            CliContext context, AuditLog audit, AgentMetrics metrics, NodeVerdict verdict) {
        if (gpuCheckEverySeconds < 0) {
            throw new CliException(
                    ExitCode.USAGE,
                    "--gpu-check-every must be 0 (never) or a number of seconds: " + gpuCheckEverySeconds);
        }
        if (gpuTools != null && !Files.isDirectory(gpuTools)) {
            throw new CliException(ExitCode.USAGE, "--gpu-tools: not a directory: " + gpuTools);
        }
        String path = searchPath(context);
        ToolLocator tools = new ToolLocator(gpuTools == null ? path : gpuTools.toAbsolutePath() + ":" + path);
        if (gpuCheckEverySeconds == 0
                || (tools.find("nvidia-smi").isEmpty() && tools.find("dcgmi").isEmpty())) {
            return Optional.empty();
        }
        OwnNodeMarker marker = ownNodeMarker(context, "--gpu-check-every", metrics, verdict);
        // One client for every check: it asks Slurm's version once, not at each check.
        SlurmClient slurm = context.slurm();
        HealthContext checks = new HealthContext(
                context.toolRunner(), tools, HealthSettings.defaults(), () -> gpusFromSlurm(slurm, marker.node()));
        return Optional.of(NodeCheckWatch.start(
                NodeCheckWatch.Kind.GPU,
                List.of(GpuCheck.smiOnly(), DcgmCheck.healthOnly()),
                checks,
                marker,
                audit,
                metrics,
                Duration.ofSeconds(gpuCheckEverySeconds)));
    }

    Optional<NodeCheckWatch> startSlurmdWatch(
            CliContext context, AuditLog audit, AgentMetrics metrics, NodeVerdict verdict) {
        if (slurmdCheckEverySeconds < 0) {
            throw new CliException(
                    ExitCode.USAGE,
                    "--slurmd-check-every must be 0 (never) or a number of seconds: " + slurmdCheckEverySeconds);
        }
        if (slurmdCheckEverySeconds == 0) {
            return Optional.empty();
        }
        if (node == null
                && LocalNode.name(context.environment())
                        .filter(Hostlist::isValidHostname)
                        .isEmpty()) {
            // On by default: a host without a node name of its own (not a Slurm node) runs no watch, not no agent.
            return Optional.empty();
        }
        OwnNodeMarker marker = ownNodeMarker(context, "--slurmd-check-every", metrics, verdict);
        ToolLocator tools = new ToolLocator(searchPath(context));
        HealthContext checks =
                new HealthContext(context.toolRunner(), tools, HealthSettings.defaults(), OptionalInt::empty);
        return Optional.of(NodeCheckWatch.start(
                NodeCheckWatch.Kind.SLURMD,
                List.of(new SlurmdCheck(marker.node())),
                checks,
                marker,
                audit,
                metrics,
                Duration.ofSeconds(slurmdCheckEverySeconds)));
    }

    /**
     * The one marker of this node that the Xid watch and the GPU checks share, made by whichever
     * {@code option} needs it first. Its Slurm calls ride out a slurmctld outage up to
     * --controller-outage: a fault found while the controller restarts is marked once it answers.
     */
    private OwnNodeMarker ownNodeMarker(CliContext context, String option, AgentMetrics metrics, NodeVerdict verdict) {
        if (ownNodeMarker == null) {
            if (controllerOutageSeconds < 0) {
                throw new CliException(
                        ExitCode.USAGE,
                        "--controller-outage must be 0 (one try) or a number of seconds: " + controllerOutageSeconds);
            }
            String name = ownNode(context, option);
            CommandRunner riding = context.runner(
                    new ControllerOutage(Duration.ofSeconds(controllerOutageSeconds), new OwnMarkOutageLog(name)));
            ownNodeMarker = new OwnNodeMarker(name, context.slurm(riding), new SlurmControl(riding), metrics, verdict);
        }
        return ownNodeMarker;
    }

    /** Where the watches look for their tools: the agent's PATH, or the fallback where it has none. */
    private static String searchPath(CliContext context) {
        return context.environment().getOrDefault("PATH", ToolLocator.FALLBACK_PATH);
    }

    /** The gpu Gres Slurm has for the node: what nvidia-smi's count is compared with; empty when unknown. */
    private static OptionalInt gpusFromSlurm(SlurmClient slurm, String name) {
        try {
            return GresGpus.ofNode(slurm, name);
        } catch (RuntimeException e) {
            return OptionalInt.empty();
        }
    }

    /** This node's Slurm name, which {@code option}'s watch marks: --node, else SLURMD_NODENAME or the host name. */
    private String ownNode(CliContext context, String option) {
        if (node == null) {
            node = LocalNode.name(context.environment())
                    .orElseThrow(
                            () -> new CliException(
                                    ExitCode.USAGE,
                                    option
                                            + ": this node's Slurm name is unknown (no SLURMD_NODENAME, no host name): give --node"));
        }
        if (!Hostlist.isValidHostname(node)) {
            throw new CliException(ExitCode.USAGE, "--node: not a valid node name: \"" + node + "\"");
        }
        return node;
    }

    /** --node as given; null when the node's name is left to SLURMD_NODENAME or the host name. */
    String givenName() {
        return node;
    }

    /** The agent's start-up line's part about its own node's watches. */
    String describe(boolean gpuWatchRuns, boolean slurmdWatchRuns) {
        return NodeXidWatch.resolve(xidSource)
                        .map(p -> ", watching " + p + " for Xids of node " + node)
                        .orElse(", no Xid watch"
                                + (xidSource.equals(NodeXidWatch.AUTO) ? " (no NVIDIA driver loaded)" : ""))
                + (gpuWatchRuns
                        ? ", GPU checks every " + gpuCheckEverySeconds + " s"
                        : gpuCheckEverySeconds > 0 ? ", no GPU checks (neither nvidia-smi nor dcgmi found)" : "")
                + (slurmdWatchRuns ? ", asking its slurmd every " + slurmdCheckEverySeconds + " s" : "");
    }
}
