package org.slurmautoresume.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slurmautoresume.bridge.agent.AgentClient;
import org.slurmautoresume.bridge.agent.AgentPolicy;
import org.slurmautoresume.bridge.agent.SiteReplaceCommand;
import org.slurmautoresume.bridge.agent.AgentServer;
import org.slurmautoresume.bridge.agent.AgentService;
import org.slurmautoresume.bridge.agent.AuditLog;
import org.slurmautoresume.bridge.agent.TcpNodeProber;
import org.slurmautoresume.bridge.agent.UnixUsers;
import org.slurmautoresume.bridge.sweep.Sweep;
import org.slurmautoresume.bridge.sweep.SweepLock;
import org.slurmautoresume.bridge.sweep.SweepPolicy;
import org.slurmautoresume.bridge.sweep.SweepPolicyException;
import org.slurmautoresume.bridge.sweep.SweepPolicyLoader;
import org.slurmautoresume.bridge.sweep.SweepSchedule;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "agent",
        mixinStandardHelpOptions = true,
        description = {
            "Run the privileged agent (as root, one per node; normally the systemd unit autoresume-agent).",
            "It listens on a Unix socket that every user may connect to and, for each request, reads the"
                + " caller's identity from the kernel: a user's supervisor can get unhealthy nodes of its OWN"
                + " running job marked fail/down with reason Action:Replace or Action:Reboot, and nothing else."
                + " Every request and decision is appended to the audit log. Stops cleanly on SIGTERM."
        })
final class AgentCommand implements Callable<Integer> {

    static final Path DEFAULT_AUDIT_LOG = Path.of("/var/log/autoresume/agent-audit.log");

    private final CliContext context;

    @Spec
    private CommandSpec spec;

    @Option(names = "--socket", paramLabel = "PATH", description = "Socket to listen on. Default: ${DEFAULT-VALUE}.")
    private Path socket = AgentClient.DEFAULT_SOCKET;

    @Option(names = "--audit-log", paramLabel = "PATH", description = "Audit log (one JSON line per request)."
            + " Default: ${DEFAULT-VALUE}.")
    private Path auditLog = DEFAULT_AUDIT_LOG;

    @Option(names = "--probe-timeout", paramLabel = "SECONDS", defaultValue = "2",
            description = "How long a node's slurmd may take to accept a TCP connection before the node counts"
                + " as unreachable. Default: ${DEFAULT-VALUE}.")
    private int probeTimeoutSeconds;

    @Option(names = "--replace-command", paramLabel = "PATH",
            description = "The site's program that replaces a node (a cloud API call, say), run as root with the"
                + " node name as its only argument when a job's supervisor uses the `command` replacement"
                + " provider (AUTORESUME_REPLACEMENT=command) for a node this agent marked Action:Replace."
                + " Without it such requests are refused.")
    private Path replaceCommand;

    @Option(names = "--replace-timeout", paramLabel = "SECONDS", defaultValue = "1800",
            description = "How long the replace command may run before it is killed. Default: ${DEFAULT-VALUE}.")
    private int replaceTimeoutSeconds;

    @Option(names = "--sweep-every", paramLabel = "SECONDS", defaultValue = "0",
            description = "Also run `autoresume sweep` every SECONDS (after the previous pass ended), so this node"
                + " needs no timer for it: run it on one node, the controller. Each report goes to the audit log"
                + " as a line with a \"sweep\" field. Takes the same lock as `autoresume sweep`: a pass that finds"
                + " it busy is skipped. 0 (the default): never.")
    private int sweepEverySeconds;

    @Option(names = "--sweep-policy", paramLabel = "FILE",
            description = "Sweep policy for --sweep-every (as `autoresume sweep --policy`); default: the built-in one.")
    private Path sweepPolicy;

    @Option(names = "--sweep-lock", paramLabel = "FILE",
            description = "Sweep lock for --sweep-every; default: the one `autoresume sweep` uses.")
    private Path sweepLock;

    AgentCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws Exception {
        if (UnixUsers.effectiveUid() != 0) {
            throw new CliException(ExitCode.FAILED, "the agent must run as root (it marks nodes with `scontrol update`,"
                    + " which only Slurm's administrators may run): start it with `sudo autoresume agent` or"
                    + " `systemctl start autoresume-agent`");
        }
        if (probeTimeoutSeconds <= 0) {
            throw new CliException(ExitCode.USAGE, "--probe-timeout must be positive: " + probeTimeoutSeconds);
        }
        if (sweepEverySeconds < 0) {
            throw new CliException(ExitCode.USAGE, "--sweep-every must be 0 (never) or a number of seconds: "
                    + sweepEverySeconds);
        }
        if (sweepEverySeconds == 0 && (sweepPolicy != null || sweepLock != null)) {
            throw new CliException(ExitCode.USAGE, "--sweep-policy and --sweep-lock need --sweep-every SECONDS");
        }
        SweepPolicy policyForSweeps;
        try {
            policyForSweeps = sweepPolicy == null ? SweepPolicy.DEFAULTS : SweepPolicyLoader.load(sweepPolicy);
        } catch (SweepPolicyException e) {
            throw new CliException(ExitCode.USAGE, "--sweep-policy: " + e.getMessage(), e);
        }
        Path socketDir = socket.toAbsolutePath().getParent();
        if (!Files.isDirectory(socketDir)) {
            // Readable and searchable by all: users must reach the socket inside it.
            Files.createDirectories(socketDir);
            Files.setPosixFilePermissions(socketDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        AuditLog audit;
        try {
            audit = new AuditLog(auditLog);
        } catch (IOException e) {
            throw new CliException(ExitCode.FAILED, "cannot open the audit log " + auditLog + ": " + e.getMessage(), e);
        }
        Optional<SiteReplaceCommand> replace;
        try {
            replace = replaceCommand == null ? Optional.empty() : Optional.of(new SiteReplaceCommand(
                    replaceCommand.toAbsolutePath(), Duration.ofSeconds(replaceTimeoutSeconds), context.runner()));
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, "--replace-command: " + e.getMessage());
        }
        AgentPolicy policy = new AgentPolicy(context.slurm(), context.runner(), "scontrol",
                new TcpNodeProber(Duration.ofSeconds(probeTimeoutSeconds)), System.getProperty("user.name"), replace);
        AgentServer server = new AgentServer(socket, new AgentService(policy, audit), AgentServer.DEFAULT_READ_TIMEOUT);
        try {
            server.start();
        } catch (IOException e) {
            audit.close();
            throw new CliException(ExitCode.FAILED, "cannot listen on " + socket + ": " + e.getMessage(), e);
        }
        Optional<SweepSchedule> sweeps = Optional.empty();
        if (sweepEverySeconds > 0) {
            SweepSchedule schedule = new SweepSchedule(Sweep.forPolicy(context.slurm(), context.runner(),
                    policyForSweeps, context::now), policyForSweeps,
                    sweepLock == null ? SweepLock.defaultPath() : sweepLock, audit::recordSweep);
            schedule.start(Duration.ofSeconds(sweepEverySeconds));
            sweeps = Optional.of(schedule);
        }
        Optional<SweepSchedule> stopSweeps = sweeps;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stopSweeps.ifPresent(SweepSchedule::close);
            server.close();
            try {
                audit.close();
            } catch (IOException e) {
                // the process is ending; every line was already flushed
            }
        }, "agent-shutdown"));
        PrintWriter err = spec.commandLine().getErr();
        err.println("autoresume agent: listening on " + server.socket() + ", audit log " + audit.file()
                + (sweepEverySeconds > 0 ? ", sweeping every " + sweepEverySeconds + " s" : ""));
        err.flush();
        server.awaitStopped();
        return ExitCode.OK.code();
    }
}
