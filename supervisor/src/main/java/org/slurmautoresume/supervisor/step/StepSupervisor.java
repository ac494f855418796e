package org.slurmautoresume.supervisor.step;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.protocol.AgentOutage;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.exec.ControllerOutage;
import org.slurmautoresume.slurm.exec.DebugLogging;
import org.slurmautoresume.slurm.files.OwnedFiles;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.SlurmConfig;
import org.slurmautoresume.slurm.model.SlurmTime;
import org.slurmautoresume.slurm.probe.LivenessProber;
import org.slurmautoresume.slurm.probe.NodeProber;
import org.slurmautoresume.slurm.probe.SlurmdStatusProber;
import org.slurmautoresume.supervisor.checkpoint.CheckpointLocator;
import org.slurmautoresume.supervisor.checkpoint.CheckpointRule;
import org.slurmautoresume.supervisor.config.AutoresumeConfig;
import org.slurmautoresume.supervisor.policy.RestartPolicy;
import org.slurmautoresume.supervisor.policy.RestartRecord;
import org.slurmautoresume.supervisor.policy.SignalNumber;
import org.slurmautoresume.supervisor.recovery.JobResizer;
import org.slurmautoresume.supervisor.recovery.NodeFaultRecovery;
import org.slurmautoresume.supervisor.recovery.Replacement;
import org.slurmautoresume.supervisor.recovery.ReplacementProvider;
import org.slurmautoresume.supervisor.recovery.ReturningNodeProvider;
import org.slurmautoresume.supervisor.recovery.SpareProvider;
import org.slurmautoresume.supervisor.step.launch.SrunLauncher;
import org.slurmautoresume.supervisor.step.launch.StepProcess;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobStateDirectory;
import org.slurmautoresume.supervisor.step.record.JobTimeline;
import org.slurmautoresume.supervisor.step.record.MetricsReporter;
import org.slurmautoresume.supervisor.step.record.PhasePause;
import org.slurmautoresume.supervisor.step.record.RestartHistoryFile;
import org.slurmautoresume.supervisor.step.record.StaleJobFile;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;
import org.slurmautoresume.supervisor.step.restart.KnownPaths;
import org.slurmautoresume.supervisor.step.restart.RestartActions;
import org.slurmautoresume.supervisor.step.restart.RestartGate;
import org.slurmautoresume.supervisor.step.settings.Allocation;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;
import org.slurmautoresume.supervisor.step.watch.StepWatch;

/**
 * Runs one srun command as a supervised step: starts it as a child with the guard variable the
 * plugin looks for, forwards signals, and when it ends decides from Slurm's records whether it
 * may run again. With a spare pool configured it also watches the step's slurmd, and after a
 * node fault has the agent mark the node, replaces it and re-runs the step on the repaired job.
 *
 * <p>This class puts the parts together and does what happens once per srun (read the job,
 * preflight, the restart budgets); the {@link AttemptLoop} runs the attempts, a {@link StepWatch}
 * watches each, the {@link RestartActions} carry out decisions and the {@link JobTimeline}
 * records them.
 */
public final class StepSupervisor {

    /** Set in the child srun's environment: the plugin lets a supervised srun through. */
    public static final String GUARD = "AUTORESUME_SUPERVISED";
    /** The attempt number, 1 for the first run, exported to srun and so to the tasks. */
    public static final String ATTEMPT = "AUTO_RESUME_ATTEMPT";
    /** Set by the SPANK plugin for the supervisor it execs: the Slurm release (see CliContext). */
    public static final String SLURM_VERSION_HINT = "AUTORESUME_SLURM_VERSION";
    /** The newest complete checkpoint in AUTORESUME_CHECKPOINT_DIR, for the step to resume from. */
    public static final String CHECKPOINT = "AUTO_RESUME_CHECKPOINT";

    private static final Duration AGENT_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration ALLOCATION_TIMEOUT = Duration.ofSeconds(60);
    private final SlurmClient slurm;
    private final ControllerOutage outage;
    private final ControllerOutageReport outageReport;
    private final SupervisorSettings settings;
    /** USER, in the names of the per-job files. */
    private final String user;

    private final SupervisorLog log;
    /** The policy from configuration files; empty when none was read (the variables alone decide). */
    private final Optional<RestartPolicy> configuredPolicy;
    /** The user's per-job directory, checked; empty outside a job or when it was refused. */
    private final Optional<Path> stateDir;

    private final Optional<RestartHistoryFile> historyFile;
    private final JobTimeline timeline;
    /** SLURM_JOB_ID; empty outside a job. */
    private final Optional<JobId> jobId;

    private final boolean recovers;
    private final AttemptLoop loop;
    private final RestartActions actions;
    /** Read ahead (null outside a job): the job's record, the cluster's configuration, why no agent answers. */
    private final CompletableFuture<Optional<Job>> jobAhead;

    private final CompletableFuture<SlurmConfig> configAhead;
    private final CompletableFuture<Optional<String>> agentAway;

    /** A supervisor with no configuration file: no log rules, the budgets from the environment. */
    public StepSupervisor(
            SlurmClient slurm,
            CommandRunner runner,
            SupervisorSettings settings,
            Map<String, String> environment,
            SupervisorLog log) {
        this(
                slurm,
                runner,
                settings,
                Optional.empty(),
                environment,
                log,
                new ControllerOutage(Duration.ZERO, ControllerOutage.Listener.NONE));
    }

    /**
     * @param config the job's merged configuration files (log rules, restart policy), empty when
     *               there are none
     * @param outage what {@code slurm} and {@code runner} ride slurmctld outages with: told here
     *               what to report to, and given the cluster's SlurmctldTimeout once it is read
     */
    public StepSupervisor(
            SlurmClient slurm,
            CommandRunner runner,
            SupervisorSettings settings,
            Optional<AutoresumeConfig> config,
            Map<String, String> environment,
            SupervisorLog log,
            ControllerOutage outage) {
        this(
                slurm,
                runner,
                settings,
                config,
                environment,
                log,
                StepProcess::start,
                cluster -> prober(settings.livenessPort(), settings.checkPort(), cluster),
                outage);
    }

    /**
     * Each node's agent first, where it answers; its slurmd where none does, asked for its status
     * in the cluster's own protocol so that slurmd logs nothing (a bare connect where the
     * cluster's configuration rules that out); and the agents' fresh checks when a failed attempt
     * is diagnosed (docs/health-checks.md).
     */
    private static Supplier<NodeProber> prober(
            int livenessPort, int checkPort, Supplier<Optional<SlurmConfig>> cluster) {
        return () -> {
            NodeProber slurmd = SlurmdStatusProber.forCluster(cluster.get(), StepWatch.PROBE_INTERVAL);
            return livenessPort == 0
                    ? slurmd
                    : new LivenessProber(StepWatch.PROBE_INTERVAL, livenessPort, checkPort, true, slurmd);
        };
    }

    /** How the prober is made, given the cluster's configuration as read ahead (asked only when a watch starts). */
    @FunctionalInterface
    interface ProberFactory {
        Supplier<NodeProber> probers(Supplier<Optional<SlurmConfig>> cluster);
    }

    /**
     * With the boundaries a test replaces: how srun is started and how a slurmd is probed (made
     * when a step's nodes are first probed, so a short step never loads the prober).
     */
    StepSupervisor(
            SlurmClient slurm,
            CommandRunner runner,
            SupervisorSettings settings,
            Optional<AutoresumeConfig> config,
            Map<String, String> environment,
            SupervisorLog log,
            SrunLauncher launcher,
            Supplier<NodeProber> prober) {
        this(
                slurm,
                runner,
                settings,
                config,
                environment,
                log,
                launcher,
                cluster -> prober,
                new ControllerOutage(Duration.ZERO, ControllerOutage.Listener.NONE));
    }

    private StepSupervisor(
            SlurmClient slurm,
            CommandRunner runner,
            SupervisorSettings settings,
            Optional<AutoresumeConfig> config,
            Map<String, String> environment,
            SupervisorLog log,
            SrunLauncher launcher,
            ProberFactory probers,
            ControllerOutage outage) {
        this.slurm = slurm;
        this.settings = settings;
        this.log = log;
        Allocation allocation = settings.allocation();
        allocation.jobIdRefused().ifPresent(why -> log.say(why + "; supervising as outside a job"));
        this.jobId = allocation.jobId();
        this.user = allocation.user();
        // First, so that Slurm's answers arrive while the rest is built (see JobNodeRecords).
        JobNodeRecords nodeRecords =
                jobId.isPresent() ? JobNodeRecords.readAhead(slurm, log, allocation) : JobNodeRecords.none(slurm, log);
        // Asked now, on threads of their own, and used once the first srun has started: a short
        // step would otherwise wait for them, one after the other, after it ended.
        this.jobAhead = jobId.isEmpty() ? null : ReadAhead.start("job-at-start", this::jobAtStart);
        this.configAhead = jobId.isEmpty() ? null : ReadAhead.start("cluster-config", slurm::config);
        // A local socket's first connection costs about 20 ms of CPU: asked aside, and only where a socket is.
        this.agentAway = jobId.isEmpty()
                ? null
                : ReadAhead.start("agent-reachable", () -> AgentClient.unreachable(settings.agentSocket()));
        AutoresumeConfig effective = config.orElse(AutoresumeConfig.DEFAULT);
        this.configuredPolicy = config.map(AutoresumeConfig::policy);
        // Outside a job nothing is kept; a refused directory is said once and the step runs without it.
        this.stateDir = jobId.flatMap(job -> JobStateDirectory.open(settings.stateDir(), log::say));
        this.historyFile = jobId.flatMap(job -> stateDir.map(dir -> new RestartHistoryFile(dir, user, job.toString())));
        this.timeline = new JobTimeline(
                jobId.flatMap(job -> stateDir.map(dir -> new EventHistory(dir, user, job.toString(), log::say))),
                jobId.map(job -> new MetricsReporter(settings.agentSocket(), job.toString(), log::say)));
        this.outage = outage;
        this.outageReport = new ControllerOutageReport(log, timeline);
        outage.listen(outageReport);
        // Recovery's requests wait out an agent restart; MetricsReporter's never wait (their own client).
        AgentClient agent = new AgentClient(settings.agentSocket(), AGENT_TIMEOUT)
                .ridingOutages(new AgentOutage(settings.agentSocket(), settings.agentOutage(), log::say));
        Optional<NodeFaultRecovery> recovery = settings.replacement()
                .map(kind -> new NodeFaultRecovery(
                        slurm,
                        agent,
                        new JobResizer(runner, slurm, ALLOCATION_TIMEOUT),
                        provider(kind, settings, slurm, agent, log),
                        log::say));
        // A step with in-job spares is repaired without any configured replacement: the job shrinks.
        Optional<NodeFaultRecovery> spareRecovery = recovery.or(() -> Optional.of(new NodeFaultRecovery(
                slurm,
                agent,
                new JobResizer(runner, slurm, ALLOCATION_TIMEOUT),
                ReplacementProvider.none("no in-job spare is left" + " and no replacement is configured ("
                        + SupervisorSettings.REPLACEMENT + ")"),
                log::say)));
        this.recovers = recovery.isPresent();
        // The checkpoint rule's directory, when it names one, is also where a re-run resumes from.
        Optional<CheckpointLocator> checkpoints = effective
                .checkpointMonitoring()
                .map(rule -> rule.locator(environment)
                        .orElseThrow(() -> new IllegalArgumentException(CheckpointRule.NO_DIRECTORY)))
                .or(() -> CheckpointLocator.fromEnvironment(environment));
        StopRequest stop = new StopRequest();
        this.actions = new RestartActions(
                slurm,
                runner,
                recovery,
                spareRecovery,
                settings,
                jobId,
                log,
                timeline,
                historyFile,
                stop::requested,
                PhasePause.fromEnvironment(environment, timeline));
        this.loop = new AttemptLoop(
                launcher,
                slurm,
                jobId,
                log,
                timeline,
                actions,
                stop,
                new AttemptLaunch(environment, allocation, checkpoints, log),
                effective,
                checkpoints,
                probers.probers(() -> configAhead == null ? Optional.empty() : configForProbes(configAhead)),
                nodeRecords);
    }

    private static ReplacementProvider provider(
            Replacement kind, SupervisorSettings settings, SlurmClient slurm, AgentClient agent, SupervisorLog log) {
        return kind == Replacement.SPARE
                ? new SpareProvider(settings.spares().orElseThrow(), slurm)
                : new ReturningNodeProvider(kind, slurm, agent, log::say);
    }

    /**
     * Called from the signal handlers: passes the signal to srun. SIGINT from the terminal already
     * reached srun (same foreground process group), so it is not sent twice: two within a second
     * would make srun kill the step.
     */
    public void onSignal(SignalNumber signal, boolean alreadyDeliveredToGroup) {
        loop.onSignal(signal, alreadyDeliveredToGroup);
    }

    /** Runs the step until it succeeds or must not run again; returns the exit status to end with. */
    public int run(List<String> srunArgv) throws InterruptedException {
        try {
            return loop.run(srunArgv, spares -> {
                Optional<Job> job = jobAhead == null ? jobAtStart() : ReadAhead.join(jobAhead);
                // First: it removes another job's files of this id before this job's timeline is written to.
                RestartGate gate = restartGate(job);
                outageReport.timelineReady();
                Optional<SlurmConfig> config = job.flatMap(j -> clusterConfig(configAhead));
                Optional<KnownPaths> known =
                        job.map(j -> actions.knowPaths(j, config, ReadAhead.join(agentAway), spares));
                preflightOncePerJob(job, config, known.map(KnownPaths::description));
                return new AttemptLoop.JobStart(
                        gate, recovers ? job.map(Job::numNodes).orElse(0) : 0, known.orElse(KnownPaths.UNKNOWN));
            });
        } finally {
            timeline.close();
        }
    }

    /**
     * The restart budgets with what this job used before (earlier sruns, earlier runs before a
     * requeue). Without a configuration file the variables' budgets count per srun.
     */
    private RestartGate restartGate(Optional<Job> job) {
        Optional<Instant> started = job.flatMap(Job::startTime).map(SlurmTime::toInstant);
        if (job.isPresent()) {
            List<Path> files = new ArrayList<>();
            historyFile.ifPresent(h -> files.add(h.path()));
            timeline.history().ifPresent(e -> files.add(e.path()));
            for (Path file : files) {
                try {
                    if (StaleJobFile.discard(file, job.get().restarts(), started)) {
                        DebugLogging.debug(
                                StepSupervisor.class,
                                "removed {}: written before job {} started, by another job with its id",
                                file,
                                job.get().jobId());
                    }
                } catch (IOException e) {
                    log.say("cannot remove " + file + ", left by an earlier job with this id (" + e.getMessage() + ")");
                }
            }
        }
        List<RestartRecord> earlier = List.of();
        if (configuredPolicy.isPresent() && historyFile.isPresent() && job.isPresent()) {
            try {
                earlier = historyFile.get().read(job.get().restarts(), started);
            } catch (IOException e) {
                log.say("cannot read the restart history " + historyFile.get().path() + " (" + e.getMessage()
                        + "); counting from zero");
            }
        }
        return RestartGate.of(configuredPolicy.orElse(null), settings, earlier);
    }

    /** The job this srun runs in, read once; empty outside a job or when Slurm does not answer. */
    private Optional<Job> jobAtStart() {
        if (jobId.isEmpty()) {
            log.say("srun runs outside a job allocation: only in-place re-runs are possible");
            return Optional.empty();
        }
        try {
            return Optional.of(slurm.requireJob(jobId.get()));
        } catch (SlurmException e) {
            log.say("could not read job " + jobId.get() + " from Slurm (" + e.getMessage()
                    + "); preflight skipped, and a node fault will not be repaired by resizing");
            return Optional.empty();
        }
    }

    /**
     * The marker names the job by its id and submit time: job ids come round again (MaxJobId, or a
     * controller started with its state cleared), and a stale marker would hide the findings from
     * a new job. {@code autoresume-preflight-USER-JOBID-SUBMITTED}, SUBMITTED the digits of the
     * submit time the text prints.
     */
    static String preflightMarkerName(String user, Job job) {
        String submitted = job.submitTime().map(StepSupervisor::digitsOf).orElse("");
        return "autoresume-preflight-" + JobStateDirectory.nameSafe(user) + "-" + job.jobId() + "-" + submitted;
    }

    /**
     * The digits of the text's SubmitTime ({@code 2026-11-24T23:50:53} gives {@code
     * 20261124235053}), as markers written before --json were named. Written by hand: a
     * DateTimeFormatter built in a static field cost every supervised start its class init.
     */
    static String digitsOf(LocalDateTime time) {
        StringBuilder digits = new StringBuilder(14).append(time.getYear());
        for (int field : new int[] {
            time.getMonthValue(), time.getDayOfMonth(), time.getHour(), time.getMinute(), time.getSecond()
        }) {
            digits.append((char) ('0' + field / 10)).append((char) ('0' + field % 10));
        }
        return digits.toString();
    }

    /** Prints the preflight findings once per job, not once per srun (see {@link #preflightMarkerName}). */
    private void preflightOncePerJob(Optional<Job> job, Optional<SlurmConfig> config, Optional<String> paths) {
        if (job.isEmpty() || config.isEmpty()) {
            return;
        }
        // Without a state directory the findings are printed on every srun: better twice than never.
        if (stateDir.isPresent()) {
            Path marker = stateDir.get().resolve(preflightMarkerName(user, job.get()));
            try {
                OwnedFiles.open(
                                marker,
                                JobStateDirectory.uid(),
                                StandardOpenOption.CREATE_NEW,
                                StandardOpenOption.WRITE)
                        .close();
            } catch (FileAlreadyExistsException e) {
                return;
            } catch (IOException e) {
                DebugLogging.debug(
                        StepSupervisor.class, "cannot write preflight marker {}: {}", marker, e.getMessage());
            }
        }
        for (PreflightFinding finding : new Preflight().check(config.get(), job.get())) {
            log.say("preflight: " + finding.describe());
        }
        // Once per job, beside the findings (information, not advice); a healthy step's supervisor says nothing else.
        paths.ifPresent(p -> log.say("recovery paths: " + p));
    }

    /** The configuration read ahead, for the slurmd prober: empty when it could not be read (said by clusterConfig). */
    private static Optional<SlurmConfig> configForProbes(CompletableFuture<SlurmConfig> configAhead) {
        try {
            return Optional.of(ReadAhead.join(configAhead));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The cluster's configuration, read once per srun (ahead) for the preflight and the recovery paths. */
    private Optional<SlurmConfig> clusterConfig(CompletableFuture<SlurmConfig> configAhead) {
        try {
            SlurmConfig config = ReadAhead.join(configAhead);
            if (settings.controllerOutage().isEmpty()) {
                outage.bound(ControllerOutage.boundFor(config.seconds("SlurmctldTimeout").stream()
                        .mapToObj(Duration::ofSeconds)
                        .findFirst()
                        .orElse(ControllerOutage.DEFAULT_SLURMCTLD_TIMEOUT)));
            }
            return Optional.of(config);
        } catch (SlurmException e) {
            log.say("could not read the cluster's configuration (" + e.getMessage() + "); preflight skipped, and"
                    + " every recovery path is tried as it comes");
            return Optional.empty();
        }
    }
}
