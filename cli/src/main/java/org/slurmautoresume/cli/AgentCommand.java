package org.slurmautoresume.cli;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.server.AgentMetrics;
import org.slurmautoresume.agent.server.AgentPolicy;
import org.slurmautoresume.agent.server.AgentServer;
import org.slurmautoresume.agent.server.AgentService;
import org.slurmautoresume.agent.server.AuditLog;
import org.slurmautoresume.agent.server.LivenessListener;
import org.slurmautoresume.agent.server.NodeCheckWatch;
import org.slurmautoresume.agent.server.NodeVerdict;
import org.slurmautoresume.agent.server.OnDemandHealth;
import org.slurmautoresume.agent.server.ProcStatus;
import org.slurmautoresume.agent.server.SiteReplaceCommand;
import org.slurmautoresume.agent.server.SpankPluginAtStart;
import org.slurmautoresume.agent.server.UnixUsers;
import org.slurmautoresume.nodeops.health.NodeHealth;
import org.slurmautoresume.nodeops.lemon.LemonRule;
import org.slurmautoresume.nodeops.sweep.Sweep;
import org.slurmautoresume.nodeops.sweep.SweepLock;
import org.slurmautoresume.nodeops.sweep.SweepPolicy;
import org.slurmautoresume.nodeops.sweep.SweepPolicyException;
import org.slurmautoresume.nodeops.sweep.SweepPolicyLoader;
import org.slurmautoresume.nodeops.sweep.SweepSchedule;
import org.slurmautoresume.nodeops.xid.XidWatch;
import org.slurmautoresume.slurm.probe.LivenessProber;
import org.slurmautoresume.slurm.probe.NodeProber;
import org.slurmautoresume.slurm.probe.TcpNodeProber;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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
                    + " running job marked fail with reason Action:Replace or Action:Reboot (down only for a dead node"
                    + " running nothing else), and resume only what the agent itself marked for that job (see"
                    + " --state-dir), nothing else."
                    + " Every request and decision is appended to the audit log. Stops cleanly on SIGTERM."
        })
final class AgentCommand implements Callable<Integer> {

    static final Path DEFAULT_AUDIT_LOG = Path.of("/var/log/autoresume/agent-audit.log");

    private final CliContext context;

    @Spec
    private CommandSpec spec;

    @Option(names = "--socket", paramLabel = "PATH", description = "Socket to listen on. Default: ${DEFAULT-VALUE}.")
    private Path socket = AgentClient.DEFAULT_SOCKET;

    @Option(
            names = "--audit-log",
            paramLabel = "PATH",
            description = "Audit log (one JSON line per request)." + " Default: ${DEFAULT-VALUE}.")
    private Path auditLog = DEFAULT_AUDIT_LOG;

    @Option(
            names = "--state-dir",
            paramLabel = "DIR",
            description = "Where the agent records the nodes it marked at a job's request (which job, when), so that"
                    + " a later resume applies only to its own marks for that same job, across restarts. Created 0700;"
                    + " must be root's alone, not a link. Default: ${DEFAULT-VALUE}.")
    private Path stateDir = AgentPolicy.DEFAULT_STATE_DIR;

    @Option(
            names = "--probe-timeout",
            paramLabel = "SECONDS",
            defaultValue = "2",
            description = "How long a node's agent may take to greet on its liveness port, or (where no agent"
                    + " answers) its slurmd to accept a TCP connection, before the node counts as unreachable."
                    + " A liveness port that accepts and stays silent counts only if the node's slurmd, sent a"
                    + " message it refuses at once, stays silent as long too (anyone may hold an unprivileged"
                    + " port while the agent is down). Default: ${DEFAULT-VALUE}.")
    private int probeTimeoutSeconds;

    @Option(
            names = "--replace-command",
            paramLabel = "PATH",
            description = "The site's program that replaces a node (a cloud API call, say), run as root with the"
                    + " node name as its only argument when a job's supervisor uses the `command` replacement"
                    + " provider (AUTORESUME_REPLACEMENT=command) for a node this agent marked Action:Replace."
                    + " Without it such requests are refused.")
    private Path replaceCommand;

    @Option(
            names = "--replace-timeout",
            paramLabel = "SECONDS",
            defaultValue = "1800",
            description = "How long the replace command may run before it is killed. Default: ${DEFAULT-VALUE}.")
    private int replaceTimeoutSeconds;

    @Option(
            names = "--health-command",
            paramLabel = "PATH",
            description = "The site's node health check, run as root with the node name as its only argument (for"
                    + " example a script running `ssh NODE autoresume health`) when a job's supervisor asks about a node"
                    + " that Slurm calls healthy and whose slurmd answers: exit 0 healthy, 8 unhealthy and a reboot"
                    + " should fix it, 9 only a filesystem short of space, anything else unhealthy. An unhealthy node"
                    + " may then be marked at the job's request. Any user's job may ask, so: it runs with"
                    + " " + OnDemandHealth.ENVIRONMENT + "=" + OnDemandHealth.ON_REQUEST
                    + " in its environment (leave out"
                    + " checks that disturb jobs; `autoresume health` does), at most once at a time per node, its verdict"
                    + " shared (--health-reuse); callers read the verdict and exit status, never its output, which goes"
                    + " to the agent's log. Default: Slurm's state and the slurmd probe alone decide.")
    private Path healthCommand;

    @Option(
            names = "--health-reuse",
            paramLabel = "SECONDS",
            defaultValue = "10",
            description = "How long one run of the health command answers later requests about the same node: every"
                    + " request made while it runs, or within SECONDS after it ended, gets that run's verdict, so the"
                    + " command runs on a node at most once per its run time plus SECONDS however many ask. 0: only"
                    + " requests made while it runs share it. Default: ${DEFAULT-VALUE}.")
    private int healthReuseSeconds;

    @Option(
            names = "--health-timeout",
            paramLabel = "SECONDS",
            defaultValue = "120",
            description = "How long the health command may run before it is killed and the node counts as"
                    + " unhealthy. Default: ${DEFAULT-VALUE}.")
    private int healthTimeoutSeconds;

    @Option(
            names = "--metrics-listen",
            paramLabel = "[HOST:]PORT",
            description = "Serve Prometheus metrics over HTTP at /metrics on PORT (of HOST, default: every address;"
                    + " 127.0.0.1:PORT keeps them on this host). They count what supervisors of jobs on this node"
                    + " report about their own jobs (steps started, restarted by level, restart and fault-detection"
                    + " latency, log-rule violations, nodes replaced, steps succeeded or given up) and what the agent"
                    + " did (nodes marked, requests answered); docs/metrics.md lists them. Default: not served.")
    private String metricsListen;

    @Mixin
    private OwnNodeWatches ownNode;

    @Option(
            names = "--liveness-port",
            paramLabel = "PORT",
            defaultValue = "" + LivenessProber.DEFAULT_PORT,
            description =
                    "Greet every TCP connection to PORT with one line and close it, so that supervisors and"
                            + " agents on other nodes can tell a frozen node (processes stopped, kernel wedged: the handshake"
                            + " may still complete, nothing answers) from a live one within seconds. Nothing is read from the"
                            + " peer. Nodes whose slurmd listens on another port than 6818 (several on one host) use PORT plus"
                            + " the difference. The same PORT is what this agent probes other nodes on (AUTORESUME_LIVENESS_PORT"
                            + " for supervisors). 0: do not listen. Default: ${DEFAULT-VALUE} (privileged: no user can take it).")
    private int livenessPort;

    @Option(
            names = "--check-port",
            paramLabel = "PORT",
            defaultValue = "" + LivenessProber.DEFAULT_CHECK_PORT,
            description = "With the GPU checks on (--gpu-check-every): greet every TCP connection to PORT, as the"
                    + " liveness port does, but only after a round of the GPU checks run out of turn (at most one per"
                    + " 2 s however many ask; a fault found is confirmed 0.5 s later and marks the node), or 2.5 s."
                    + " A supervisor whose step failed on nodes Slurm calls healthy asks every step node here, so a"
                    + " GPU fault the periodic checks would find only later still moves the step (docs/health-checks.md)."
                    + " Nothing is read from the peer. Nodes whose slurmd listens on another port than 6818 use PORT"
                    + " plus the difference, as for --liveness-port. 0: do not listen. Default: ${DEFAULT-VALUE}"
                    + " (privileged: no user can take it; AUTORESUME_CHECK_PORT for supervisors).")
    private int checkPort;

    @Option(
            names = "--sweep-every",
            paramLabel = "SECONDS",
            defaultValue = "0",
            description = "Also run `autoresume sweep` every SECONDS (after the previous pass ended), so this node"
                    + " needs no timer for it: run it on one node, the controller. Each report goes to the audit log"
                    + " as a line with a \"sweep\" field. Takes the same lock as `autoresume sweep`: a pass that finds"
                    + " it busy is skipped. 0 (the default): never.")
    private int sweepEverySeconds;

    @Option(
            names = "--sweep-policy",
            paramLabel = "FILE",
            description = "Sweep policy for --sweep-every (as `autoresume sweep --policy`); default: the built-in one.")
    private Path sweepPolicy;

    @Option(
            names = "--sweep-lock",
            paramLabel = "FILE",
            description = "Sweep lock for --sweep-every; default: the one `autoresume sweep` uses.")
    private Path sweepLock;

    @Option(
            names = "--lemon-policy",
            paramLabel = "FILE",
            description = "The sweep's policy file, read for its lemon rule alone (lemonMarks, lemonWindowSeconds): a"
                    + " node the toolkit marked faulty that often is not returned at a job's request (resume, reboot)"
                    + " but held for an administrator with reason 'autoresume: lemon: ...', as the sweep holds it"
                    + " (`autoresume node lemons` lists it). Counted from Slurm's accounting (sacctmgr); where that"
                    + " cannot be read the node returns as without the rule. Give every node's agent the file the"
                    + " sweep uses. Default: --sweep-policy's rule when given, else the built-in one (3 marks in 7"
                    + " days); lemonMarks: 0 turns it off.")
    private Path lemonPolicy;

    AgentCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws Exception {
        if (UnixUsers.effectiveUid() != 0) {
            throw new CliException(
                    ExitCode.FAILED,
                    "the agent must run as root (it marks nodes with `scontrol update`,"
                            + " which only Slurm's administrators may run): start it with `sudo autoresume agent` or"
                            + " `systemctl start autoresume-agent`");
        }
        if (probeTimeoutSeconds <= 0) {
            throw new CliException(ExitCode.USAGE, "--probe-timeout must be positive: " + probeTimeoutSeconds);
        }
        if (sweepEverySeconds < 0) {
            throw new CliException(
                    ExitCode.USAGE, "--sweep-every must be 0 (never) or a number of seconds: " + sweepEverySeconds);
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
        LemonRule lemonRule = policyForSweeps.lemon();
        if (lemonPolicy != null) {
            try {
                lemonRule = SweepPolicyLoader.load(lemonPolicy).lemon();
            } catch (SweepPolicyException e) {
                throw new CliException(ExitCode.USAGE, "--lemon-policy: " + e.getMessage(), e);
            }
        }
        Optional<InetSocketAddress> metricsAddress =
                metricsListen == null ? Optional.empty() : Optional.of(listenAddress(metricsListen));
        Path socketDir = socket.toAbsolutePath().getParent();
        if (!Files.isDirectory(socketDir)) {
            // Readable and searchable by all: users must reach the socket inside it.
            Files.createDirectories(socketDir);
            Files.setPosixFilePermissions(socketDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        // Before anything starts: a SIGTERM while the agent is still starting stops what has started.
        ExitStops stops = ExitStops.atShutdown("autoresume agent");
        try {
            return serve(stops, policyForSweeps, lemonRule, metricsAddress);
        } finally {
            stops.stopAll();
        }
    }

    /** Starts each part, adding it to {@code stops} as it starts, and serves until a SIGTERM. */
    private int serve(
            ExitStops stops,
            SweepPolicy policyForSweeps,
            LemonRule lemonRule,
            Optional<InetSocketAddress> metricsAddress)
            throws Exception {
        AuditLog audit;
        try {
            audit = new AuditLog(auditLog);
        } catch (IOException e) {
            throw new CliException(ExitCode.FAILED, "cannot open the audit log " + auditLog + ": " + e.getMessage(), e);
        }
        stops.add("the audit log", audit::close);
        reopenOnSignals(audit);
        Optional<SiteReplaceCommand> replace;
        try {
            replace = replaceCommand == null
                    ? Optional.empty()
                    : Optional.of(new SiteReplaceCommand(
                            replaceCommand.toAbsolutePath(),
                            Duration.ofSeconds(replaceTimeoutSeconds),
                            context.runner()));
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, "--replace-command: " + e.getMessage());
        }
        Optional<NodeHealth> health = Optional.empty();
        if (healthReuseSeconds < 0) {
            throw new CliException(
                    ExitCode.USAGE, "--health-reuse must be 0 or a number of seconds: " + healthReuseSeconds);
        }
        if (healthCommand != null) {
            if (!Files.isExecutable(healthCommand) || healthTimeoutSeconds <= 0) {
                throw new CliException(
                        ExitCode.USAGE,
                        "--health-command: " + healthCommand + " is not an executable"
                                + " file, or --health-timeout is not positive");
            }
            health = Optional.of(OnDemandHealth.of(
                    context.runner(),
                    List.of(healthCommand.toAbsolutePath().toString(), "{node}"),
                    Duration.ofSeconds(healthTimeoutSeconds),
                    Duration.ofSeconds(healthReuseSeconds)));
        }
        AgentMetrics metrics = new AgentMetrics();
        metrics.describeProcess(new VersionProvider().version());
        // After a Slurm upgrade (the agent restarts with the node's daemons): does auto_resume.so still load?
        SpankPluginAtStart.check(context.environment(), context.slurm()::version, audit, metrics);
        NodeProber slurmd = new TcpNodeProber(Duration.ofSeconds(probeTimeoutSeconds));
        // Asked by a supervisor, which saw the node's agent answer before, a silent agent port counts even though it
        // never greeted this agent; still only with the node's slurmd silent too (anyone may hold that port).
        AgentPolicy policy;
        try {
            policy = new AgentPolicy(
                    context.slurm(),
                    context.runner(),
                    "scontrol",
                    livenessPort == 0
                            ? slurmd
                            : new LivenessProber(Duration.ofSeconds(probeTimeoutSeconds), livenessPort, false, slurmd),
                    System.getProperty("user.name"),
                    replace,
                    metrics,
                    health,
                    stateDir);
        } catch (IOException e) {
            throw new CliException(ExitCode.FAILED, "--state-dir: " + e.getMessage(), e);
        }
        policy.useLemonRule(lemonRule, context::now);
        NodeVerdict verdict = new NodeVerdict();
        Optional<XidWatch> xidWatch = ownNode.startXidWatch(context, audit, metrics, verdict);
        xidWatch.ifPresent(watch -> stops.add("the Xid watch", watch::close));
        Optional<NodeCheckWatch> gpuWatch = ownNode.startGpuWatch(context, audit, metrics, verdict);
        gpuWatch.ifPresent(watch -> stops.add("the GPU checks", watch::close));
        Optional<NodeCheckWatch> slurmdWatch = ownNode.startSlurmdWatch(context, audit, metrics, verdict);
        slurmdWatch.ifPresent(watch -> stops.add("the slurmd checks", watch::close));
        Optional<HTTPServer> metricsServer = Optional.empty();
        if (metricsAddress.isPresent()) {
            try {
                metricsServer = Optional.of(metrics.serve(metricsAddress.get()));
            } catch (IOException e) {
                throw new CliException(
                        ExitCode.FAILED, "cannot serve metrics on " + metricsListen + ": " + e.getMessage(), e);
            }
            stops.add("the metrics server", metricsServer.get()::close);
        }
        // The liveness and fresh-check ports before the socket: the socket is what a unit, the local
        // cluster and a test wait for, and a node probed as soon as it is there must already greet.
        Optional<LivenessListener> liveness = AgentLiveness.start(
                livenessPort,
                ownNode.givenName(),
                verdict,
                context,
                spec.commandLine().getErr());
        liveness.ifPresent(listener -> stops.add("the liveness port", listener::close));
        Optional<LivenessListener> freshChecks = gpuWatch.flatMap(watch -> AgentLiveness.startFresh(
                checkPort,
                ownNode.givenName(),
                verdict,
                watch,
                context,
                spec.commandLine().getErr()));
        freshChecks.ifPresent(listener -> stops.add("the fresh-check port", listener::close));
        AgentServer server = new AgentServer(socket, new AgentService(policy, audit), AgentServer.DEFAULT_READ_TIMEOUT);
        // Added before it starts: a server stopped first refuses to start, so no socket outlives the agent.
        stops.add("the socket server", server::close);
        try {
            server.start();
        } catch (IOException e) {
            throw new CliException(ExitCode.FAILED, "cannot listen on " + socket + ": " + e.getMessage(), e);
        }
        if (sweepEverySeconds > 0) {
            SweepSchedule schedule = new SweepSchedule(
                    Sweep.forPolicy(context.slurm(), context.runner(), policyForSweeps, context::now),
                    policyForSweeps,
                    sweepLock == null ? SweepLock.defaultPath() : sweepLock,
                    audit::recordSweep);
            stops.add("sweeps", schedule::close);
            schedule.start(Duration.ofSeconds(sweepEverySeconds));
        }
        PrintWriter err = spec.commandLine().getErr();
        err.println("autoresume agent: listening on " + server.socket() + ", audit log " + audit.file()
                + (sweepEverySeconds > 0 ? ", sweeping every " + sweepEverySeconds + " s" : "")
                + (lemonRule.enabled() ? ", lemon rule " + lemonRule.describe() : ", lemon rule off")
                + ownNode.describe(gpuWatch.isPresent(), slurmdWatch.isPresent())
                + liveness.map(l -> ", answering liveness probes on port " + l.port())
                        .orElse(", no liveness port")
                + freshChecks.map(l -> ", fresh GPU checks on port " + l.port()).orElse("")
                + metricsServer
                        .map(m -> ", metrics on http://" + hostForUrl(metricsAddress.get()) + ":" + m.getPort()
                                + "/metrics")
                        .orElse(""));
        err.flush();
        server.awaitStopped();
        return ExitCode.OK.code();
    }

    /** {@code PORT} or {@code HOST:PORT} ({@code [v6]:PORT} too); port 0 takes a free one. */
    static InetSocketAddress listenAddress(String text) {
        int colon = text.lastIndexOf(':');
        String host = colon < 0 ? "" : text.substring(0, colon);
        String port = text.substring(colon + 1);
        if (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) > 65535) {
            throw new CliException(
                    ExitCode.USAGE,
                    "--metrics-listen: not a port: \"" + port + "\" (give PORT or"
                            + " HOST:PORT, such as 9464 or 127.0.0.1:9464)");
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty()) {
            return new InetSocketAddress(Integer.parseInt(port));
        }
        InetSocketAddress address = new InetSocketAddress(host, Integer.parseInt(port));
        if (address.isUnresolved()) {
            throw new CliException(ExitCode.USAGE, "--metrics-listen: unknown host \"" + host + "\"");
        }
        return address;
    }

    private static String hostForUrl(InetSocketAddress address) {
        String host = address.getAddress().isAnyLocalAddress()
                ? "0.0.0.0"
                : address.getAddress().getHostAddress();
        return host.contains(":") ? "[" + host + "]" : host;
    }

    /**
     * SIGHUP and SIGUSR2 reopen the audit log, as Slurm's daemons reopen theirs (logrotate's
     * postrotate sends one: lifecycle/logrotate/autoresume). Without this a SIGHUP would end the JVM.
     */
    private static void reopenOnSignals(AuditLog audit) {
        if (hangupIgnored(ProcStatus.SELF)) {
            // The JVM installs no handler for a signal ignored at its start (nohup, some
            // supervisors): logrotate's SIGHUP would then be lost without a word.
            System.err.println("autoresume agent: started with SIGHUP ignored (under nohup?): a SIGHUP will not reopen"
                    + " the audit log " + audit.file() + "; SIGUSR2 does. Start the agent with SIGHUP at its default,"
                    + " as its systemd unit does.");
        }
        for (String name : List.of("HUP", "USR2")) {
            sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> {
                try {
                    audit.reopen();
                    System.err.println("autoresume agent: SIG" + name + ": reopened the audit log " + audit.file());
                } catch (IOException e) {
                    System.err.println("autoresume agent: SIG" + name + ": cannot reopen the audit log " + audit.file()
                            + " (" + e.getMessage() + "); its lines are refused until a reopen succeeds");
                }
            });
        }
    }

    /** Whether the process a status file describes ignores SIGHUP: bit 0 of its {@code SigIgn:} mask. */
    static boolean hangupIgnored(Path status) {
        try {
            return ProcStatus.field(status, "SigIgn")
                    .map(mask -> (Long.parseUnsignedLong(mask, 16) & 1L) != 0)
                    .orElse(false);
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
