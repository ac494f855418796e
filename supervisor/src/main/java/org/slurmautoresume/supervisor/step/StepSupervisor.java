package org.slurmautoresume.supervisor.step;

import org.slurmautoresume.supervisor.policy.SignalNumber;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slurmautoresume.supervisor.config.AutoresumeConfig;
import org.slurmautoresume.supervisor.policy.Decision;
import org.slurmautoresume.supervisor.policy.Fault;
import org.slurmautoresume.supervisor.policy.FaultKind;
import org.slurmautoresume.supervisor.policy.RestartPolicy;
import org.slurmautoresume.supervisor.policy.RestartRecord;
import org.slurmautoresume.supervisor.rules.RuleViolation;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.protocol.AgentException;
import org.slurmautoresume.slurm.probe.TcpNodeProber;
import org.slurmautoresume.slurm.env.JobEnvironment;
import org.slurmautoresume.slurm.env.JobEnvironmentResolver;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.exec.DebugLogging;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.supervisor.recovery.JobResizer;
import org.slurmautoresume.supervisor.recovery.NodeFaultRecovery;
import org.slurmautoresume.supervisor.recovery.Replacement;
import org.slurmautoresume.supervisor.recovery.ReplacementProvider;
import org.slurmautoresume.supervisor.recovery.ReturningNodeProvider;
import org.slurmautoresume.supervisor.recovery.SpareProvider;
import org.slurmautoresume.supervisor.recovery.SlurmdWatch;
import org.slurmautoresume.supervisor.checkpoint.CheckpointLocator;
import org.slurmautoresume.supervisor.checkpoint.CheckpointMonitor;
import org.slurmautoresume.supervisor.checkpoint.CheckpointRule;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.Step;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;

/**
 * Runs one srun command as a supervised step: starts it as a child with the guard variable the
 * plugin looks for, forwards signals, and when it ends decides from Slurm's records whether it
 * may run again. With a spare pool configured it also watches the step's slurmd, and after a
 * node fault has the agent mark the node, replaces it and re-runs the step on the repaired job.
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

    private static final int STEP_LOOKUP_POLLS = 50;
    private static final long STEP_LOOKUP_INTERVAL_MS = 200;
    /** Steps shorter than this never pay for a lookup (a `srun true` takes about 150 ms). */
    private static final long STEP_LOOKUP_DELAY_MS = 500;
    private static final long STEP_LOOKUP_JOIN_MS = 15_000;
    private static final Duration AGENT_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration ALLOCATION_TIMEOUT = Duration.ofSeconds(60);
    /** Fast detection: a probe every second, three misses in a row make a node suspect. */
    private static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);
    private static final int PROBE_MISSES = 3;
    /** How long srun may take to end by itself after its step was cancelled for a dead node. */
    private static final Duration SRUN_GRACE = Duration.ofMillis(500);
    /** After a log rule ended a step on healthy nodes: srun normally ends within a second of the scancel. */
    private static final Duration RULE_STOP_GRACE = Duration.ofSeconds(10);
    /** How long the end of an attempt waits for a rule violation's handler (dump grace included elsewhere). */
    private static final Duration HANDLER_JOIN = Duration.ofSeconds(30);

    /**
     * A log rule that fired during the attempt and what the restart policy decided then;
     * {@code acted} once the step was signalled or stopped for it, after which however the step
     * ends (even exit 0 after a dump) is the rule's doing.
     */
    private static final class RuleStop {
        private final RuleViolation violation;
        private final Fault fault;
        private final Decision decision;
        private volatile boolean acted;

        RuleStop(RuleViolation violation, Fault fault, Decision decision) {
            this.violation = violation;
            this.fault = fault;
            this.decision = decision;
        }
    }

    private final SlurmClient slurm;
    private final CommandRunner runner;
    private final Optional<NodeFaultRecovery> recovery;
    private final AtomicReference<List<String>> markedByWatch = new AtomicReference<>(List.of());
    /**
     * When the fault being recovered from was confirmed: a node back under its name started after it.
     * Set before every read; not set at construction, where LocalDateTime.now() would load the time
     * zone rules (about 40 ms) before srun starts.
     */
    private volatile LocalDateTime faultConfirmedAt;
    private volatile String currentStepId;
    private boolean overlapNextAttempt;
    private final Map<String, String> freshVariables = new HashMap<>();
    private final SupervisorSettings settings;
    private final Map<String, String> environment;
    private final SupervisorLog log;
    private final Optional<CheckpointLocator> checkpoints;
    private final AttemptClassifier classifier = new AttemptClassifier();
    private final AtomicReference<SignalNumber> stopSignal = new AtomicReference<>();
    private volatile StepProcess current;
    private final AutoresumeConfig config;
    /** The policy from configuration files; empty when none was read (the variables alone decide). */
    private final Optional<RestartPolicy> configuredPolicy;
    private final Optional<RestartHistoryFile> historyFile;
    private final Optional<EventHistory> events;
    private final Optional<MetricsReporter> metrics;
    /** SLURM_JOB_ID; empty outside a job. */
    private final Optional<String> jobId;
    private volatile int attemptNumber;
    /** When the previous attempt's srun ended (System.nanoTime), for the relaunch latency; 0 before any. */
    private long previousAttemptEnded;
    private final AtomicReference<RuleStop> ruleStop = new AtomicReference<>();
    /** The budgets, known once the first srun has started (see {@link #afterFirstLaunch}). */
    private final CompletableFuture<RestartGate> budgets = new CompletableFuture<>();
    /** The job's size when the first srun started; 0 when unknown or without replacement. */
    private int jobSize;

    /** A supervisor with no configuration file: no log rules, the budgets from the environment. */
    public StepSupervisor(SlurmClient slurm, CommandRunner runner, SupervisorSettings settings,
                          Map<String, String> environment, SupervisorLog log) {
        this(slurm, runner, settings, Optional.empty(), environment, log);
    }

    /**
     * @param config the job's merged configuration files (log rules, restart policy), empty when
     *               there are none
     */
    public StepSupervisor(SlurmClient slurm, CommandRunner runner, SupervisorSettings settings,
                          Optional<AutoresumeConfig> config, Map<String, String> environment, SupervisorLog log) {
        this.config = config.orElse(AutoresumeConfig.DEFAULT);
        this.configuredPolicy = config.map(AutoresumeConfig::policy);
        String user = environment.getOrDefault("USER", System.getProperty("user.name", "user"));
        this.jobId = Optional.ofNullable(environment.get("SLURM_JOB_ID")).filter(s -> !s.isBlank());
        this.historyFile = jobId.map(job -> new RestartHistoryFile(settings.stateDir(), user, job));
        this.events = jobId.map(job -> new EventHistory(settings.stateDir(), user, job, log::say));
        this.metrics = jobId.map(job -> new MetricsReporter(settings.agentSocket(), job, log::say));
        this.slurm = slurm;
        this.runner = runner;
        AgentClient agent = new AgentClient(settings.agentSocket(), AGENT_TIMEOUT);
        this.recovery = settings.replacement().map(kind -> new NodeFaultRecovery(slurm, agent,
                new JobResizer(runner, slurm, ALLOCATION_TIMEOUT), provider(kind, settings, slurm, agent, log), log::say));
        this.settings = settings;
        this.environment = Map.copyOf(environment);
        this.log = log;
        // The checkpoint rule's directory, when it names one, is also where a re-run resumes from.
        this.checkpoints = this.config.checkpointMonitoring().map(rule -> rule.locator(environment)
                        .orElseThrow(() -> new IllegalArgumentException(CheckpointRule.NO_DIRECTORY)))
                .or(() -> CheckpointLocator.fromEnvironment(environment));
    }

    private static ReplacementProvider provider(Replacement kind, SupervisorSettings settings, SlurmClient slurm,
                                                AgentClient agent, SupervisorLog log) {
        return kind == Replacement.SPARE ? new SpareProvider(settings.spares().orElseThrow(), slurm)
                : new ReturningNodeProvider(kind, slurm, agent, log::say);
    }

    private Optional<String> jobId() {
        return jobId;
    }

    /**
     * Called from the signal handlers: passes the signal to srun. SIGINT from the terminal already
     * reached srun (same foreground process group), so it is not sent twice: two within a second
     * would make srun kill the step.
     */
    public void onSignal(SignalNumber signal, boolean alreadyDeliveredToGroup) {
        if (signal.meansStop()) {
            stopSignal.compareAndSet(null, signal);
        }
        StepProcess step = current;
        if (step == null || !step.isAlive()) {
            return;
        }
        if (alreadyDeliveredToGroup) {
            DebugLogging.debug(StepSupervisor.class, "{} came from the terminal to the whole process group; not forwarding", signal.displayName());
            return;
        }
        if (!step.signal(signal)) {
            DebugLogging.debug(StepSupervisor.class, "could not forward {} to srun {}", signal.displayName(), step.pid());
        }
    }

    /** Runs the step until it succeeds or must not run again; returns the exit status to end with. */
    public int run(List<String> srunArgv) throws InterruptedException {
        ScheduledExecutorService ticker = config.rules().isEmpty() && config.checkpointMonitoring().isEmpty() ? null
                : daemonScheduler("log-rules");
        // Checkpoint scans read a file system that may hang (NFS): never on the log rules' thread.
        ScheduledExecutorService scanner = config.checkpointMonitoring().isEmpty() ? null
                : daemonScheduler("checkpoint-scan");
        try {
            for (int attempt = 1; ; attempt++) {
                if (attempt > 1) {
                    log.stepId("?");
                    log.say("retrying step, attempt " + attempt);
                }
                OptionalInt end = runAttempt(srunArgv, attempt, ticker, scanner);
                if (end.isPresent()) {
                    return end.getAsInt();
                }
            }
        } finally {
            if (ticker != null) {
                ticker.shutdownNow();
            }
            if (scanner != null) {
                scanner.shutdownNow();
            }
            metrics.ifPresent(MetricsReporter::close);
        }
    }

    /** One attempt, start to decision: empty when the step is to run again, else the status to end with. */
    private OptionalInt runAttempt(List<String> srunArgv, int attempt, ScheduledExecutorService ticker,
                                   ScheduledExecutorService scanner)
            throws InterruptedException {
        markedByWatch.set(List.of());
        ruleStop.set(null);
        currentStepId = null;
        RuleWatch watch = ticker == null ? null : new RuleWatch(config.rules(), config.checkpointMonitoring()
                .map(rule -> new CheckpointMonitor(rule, checkpoints.orElseThrow(), InstantSource.system())),
                InstantSource.system(), ticker, scanner, this::onRuleViolation);
        StepProcess step;
        try {
            step = StepProcess.start(argvFor(srunArgv), childEnvironment(attempt),
                    watch == null ? null : watch.observer());
        } catch (RuntimeException e) {
            if (watch != null) {
                watch.close();
            }
            throw e;
        }
        current = step;
        attemptNumber = attempt;
        if (attempt == 1) {
            afterFirstLaunch();
        }
        RestartGate gate = budgets.join();
        event(EventHistory.Kind.LAUNCH, previousAttemptEnded == 0 ? OptionalLong.empty()
                : OptionalLong.of(Duration.ofNanos(System.nanoTime() - previousAttemptEnded).toMillis()),
                "srunPid", Long.toString(step.pid()));
        List<String> stepHosts = new ArrayList<>();
        Thread lookup = startStepLookup(step, stepHosts);
        int status = step.waitFor();
        long ended = System.nanoTime();
        previousAttemptEnded = ended;
        if (watch != null) {
            watch.close();
            watch.awaitHandler(HANDLER_JOIN);
        }
        if (markedByWatch.get().isEmpty()) {
            lookup.interrupt();
        } // else the watch ended this step for a dead node and is dropping it: interrupted, its
          // scontrol would die mid-update and the repair below would race a second one
        if (status != 0) {
            lookup.join(STEP_LOOKUP_JOIN_MS); // its hosts are evidence; a success needs none
        }
        Classification result = classifier.classify(evidence(status, step, stepHosts));
        if (!markedByWatch.get().isEmpty() && stopSignal.get() == null) {
            // We ended the step ourselves (scancel) because its node died: not a user's cancel.
            result = new Classification(Outcome.NODE_FAULT, "slurmd of " + Hostlist.compress(markedByWatch.get())
                    + " stopped answering and the agent confirmed it", markedByWatch.get());
        }
        event(EventHistory.Kind.ATTEMPT_ENDED, OptionalLong.empty(), "status", Integer.toString(status),
                "outcome", result.outcome().name(), "reason", result.reason());
        RuleStop stopped = ruleStop.get();
        if (stopped != null && stopSignal.get() == null && result.outcome() != Outcome.NODE_FAULT
                && (stopped.acted || result.outcome() != Outcome.SUCCEEDED)) {
            // We ended the step ourselves because a log rule fired: its decision was taken then.
            String what = stopped.violation.title() + " is " + stopped.violation.state();
            return carryOut(stopped.decision, stopped.fault, what, status, result, jobSize, ended, gate);
        }
        switch (result.outcome()) {
            case SUCCEEDED:
                event(EventHistory.Kind.SUCCEEDED, OptionalLong.empty());
                if (attempt > 1) {
                    log.say("step succeeded on attempt " + attempt);
                }
                return OptionalInt.of(0);
            case APP_FAILURE:
            case NODE_FAULT: {
                boolean node = result.outcome() == Outcome.NODE_FAULT;
                String what = (node ? "node fault: " : "application failure: ") + result.reason();
                if (stopSignal.get() != null) {
                    log.say(what + "; not re-running (exit " + status + "): the supervisor was told to stop");
                    return OptionalInt.of(status);
                }
                Fault fault = new Fault(node ? FaultKind.NODE_FAULT : FaultKind.APPLICATION_FAILURE, Instant.now(),
                        false, result.reason());
                return carryOut(gate.decide(fault), fault, what, status, result, jobSize, ended, gate);
            }
            default:
                log.say(describe(result) + "; not re-running (exit " + status + ")");
                return OptionalInt.of(status);
        }
    }

    /**
     * Does what the restart policy decided. {@code what} names the fault for the log; empty when
     * the step is to run again, else the status to end with.
     */
    private OptionalInt carryOut(Decision decision, Fault fault, String what, int status, Classification result,
                                 int jobSize, long endedNanos, RestartGate gate) {
        event(EventHistory.Kind.DECISION, OptionalLong.empty(), "fault", fault.kind().name(), "strategy",
                decision.strategy().configName(), "level", decision.level().name(), "reason", decision.describe());
        switch (decision.level()) {
            case RERUN_IN_PLACE:
                log.say(what + "; re-running in place: " + decision.describe());
                remember(gate, decision);
                return OptionalInt.empty();
            case REPLACE_NODES_AND_RERUN: {
                Optional<String> notRepaired = repairAfterNodeFault(result, jobSize, endedNanos);
                if (notRepaired.isEmpty()) {
                    log.say(decision.describe());
                    remember(gate, decision);
                    return OptionalInt.empty();
                }
                Decision next = gate.decideWithoutStepRestart(fault, notRepaired.get());
                return carryOut(next, fault, what, status, result, jobSize, endedNanos, gate);
            }
            case REQUEUE_JOB: {
                String why = what + "; " + RestartGate.whyNot(decision, fault.kind());
                if (jobId().isEmpty()) {
                    log.say(why + "; cannot requeue outside a job; not re-running (exit " + status + ")");
                    return OptionalInt.of(status);
                }
                event(EventHistory.Kind.REQUEUE, OptionalLong.empty(), "reason", why);
                log.say(why + "; requeueing the whole job (" + (gate.requeueFromEnvironment()
                        ? SupervisorSettings.ON_EXHAUSTED + "=requeue" : decision.reason()) + ")");
                // Recorded first: once Slurm has the requeue it kills this batch script, and with it us.
                // A requeue Slurm then refuses still counts, which errs on the side of fewer requeues.
                remember(gate, decision);
                CommandResult requeue = runner.run(CommandRequest.of("scontrol", "requeue", jobId().get()));
                if (!requeue.succeeded()) {
                    log.say("Slurm did not requeue job " + jobId().get() + " (" + requeue.diagnosticTail().strip()
                            + "); ending with exit " + status);
                }
                return OptionalInt.of(status);
            }
            default:
                event(EventHistory.Kind.GIVE_UP, OptionalLong.empty(), "status", Integer.toString(status),
                        "reason", RestartGate.whyNot(decision, fault.kind()));
                log.say(what + "; " + RestartGate.whyNot(decision, fault.kind()) + "; not re-running (exit " + status
                        + "): " + decision.describe());
                return OptionalInt.of(status);
        }
    }

    /**
     * What the first srun need not wait for, done while it starts: the job's record (an scontrol
     * round trip), the once-per-job preflight, and the budgets with their files (whose staleness
     * check loads the time zone rules). Done before the first event, which must not land in a
     * stale timeline file.
     */
    private void afterFirstLaunch() {
        try {
            Optional<Job> job = jobAtStart();
            preflightOncePerJob(job);
            jobSize = recovery.isPresent() ? job.map(Job::numNodes).orElse(0) : 0;
            budgets.complete(restartGate(job));
        } catch (RuntimeException e) {
            budgets.completeExceptionally(e);
            throw e;
        }
    }

    /** Counts a restart toward the budgets, here and in the job's history file for later runs. */
    private void remember(RestartGate gate, Decision decision) {
        RestartRecord record = gate.carriedOut(decision, Instant.now());
        if (record == null || historyFile.isEmpty()) {
            return;
        }
        try {
            historyFile.get().append(record);
        } catch (IOException e) {
            log.say("cannot record the restart in " + historyFile.get().path() + " (" + e.getMessage()
                    + "); budgets over the job's life will not count it after a requeue");
        }
    }

    /**
     * The restart budgets with what this job used before (earlier sruns, earlier runs before a
     * requeue). Without a configuration file the variables' budgets stay per srun, as they always were.
     */
    private RestartGate restartGate(Optional<Job> job) {
        Optional<Instant> started = job.flatMap(Job::startTime).map(t -> t.atZone(ZoneId.systemDefault()).toInstant());
        if (job.isPresent()) {
            List<Path> files = new ArrayList<>();
            historyFile.ifPresent(h -> files.add(h.path()));
            events.ifPresent(e -> files.add(e.path()));
            for (Path file : files) {
                try {
                    if (StaleJobFile.discard(file, job.get().restarts(), started)) {
                        DebugLogging.debug(StepSupervisor.class, "removed {}: written before job {} started, by another job with its id", file,
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
        return RestartGate.of(configuredPolicy.orElse(null), environment, settings, earlier);
    }

    /** One line of the job's timeline, also told to the agent's metrics (nothing outside a job). */
    private void event(EventHistory.Kind kind, OptionalLong latencyMs, String... details) {
        events.ifPresent(history -> history.record(kind, attemptNumber, currentStepId, latencyMs, details));
        if (metrics.isPresent()) {
            Map<String, String> named = new HashMap<>();
            for (int i = 0; i + 1 < details.length; i += 2) {
                named.put(details[i], details[i + 1]);
            }
            metrics.get().onEvent(kind, attemptNumber, latencyMs, named);
        }
    }

    private static ScheduledExecutorService daemonScheduler(String name) {
        return Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * A log rule fired while the step runs (on its own thread, see {@link RuleWatch}): logs the
     * evidence, decides at once (the decision says whether to dump first), and stops the step.
     */
    private void onRuleViolation(RuleViolation violation) {
        RestartGate gate = budgets.join(); // a rule may fire before the first srun's start-up work is done
        StepProcess step = current;
        Fault fault = new Fault(FaultKind.RULE_VIOLATION, violation.detectedAt(), step.isAlive(),
                violation.rule() + " " + violation.state());
        Decision decision = gate.decide(fault);
        RuleStop stop = new RuleStop(violation, fault, decision);
        ruleStop.set(stop);
        long sinceEvidence = Duration.between(violation.lastMatchAt().orElse(violation.startedAt()),
                violation.detectedAt()).toMillis();
        log.say(violation.describe() + "; detected at " + violation.detectedAt() + ", " + sinceEvidence + " ms after "
                + violation.evidenceName());
        event(EventHistory.Kind.DETECTION, OptionalLong.of(sinceEvidence), "source", violation.source().eventName(),
                "rule", violation.rule(), "state", violation.state().name(), "reason", violation.reason(), "lastMatch",
                violation.lastMatchLine().orElse(""), "lastMatchAt",
                violation.lastMatchAt().map(Instant::toString).orElse(""));
        if (!step.isAlive()) {
            return;
        }
        stop.acted = true;
        decision.dumpFirst().ifPresent(dump -> SrunStopper.dump(step, dump, log, this::event));
        if (step.isAlive()) {
            String id = currentStepId;
            log.say("stopping step " + (id == null ? "(srun " + step.pid() + ")" : jobId().orElse("?") + "." + id)
                    + " for " + violation.title());
            if (id != null && jobId().isPresent()) {
                runner.run(CommandRequest.of("scancel", jobId().get() + "." + id));
            } else {
                step.signal(SignalNumber.TERM);
            }
            SrunStopper.stop(step, RULE_STOP_GRACE);
        }
    }

    /** Marks, drops and replaces the faulty nodes; empty when the step may run again, else why not. */
    private Optional<String> repairAfterNodeFault(Classification result, int jobSize, long endedNanos) {
        String fault = "node fault: " + result.reason();
        if (recovery.isEmpty() || jobId().isEmpty()) {
            return Optional.of("no replacement is configured (" + SupervisorSettings.REPLACEMENT
                    + ", or a spare pool: AUTORESUME_SPARE_PARTITION, AUTORESUME_SPARE_FEATURE or AUTORESUME_SPARE_NODES)");
        }
        if (result.faultyNodes().isEmpty()) {
            return Optional.of("Slurm did not say which node failed");
        }
        if (jobSize <= 0) {
            return Optional.of("the job's size could not be read from Slurm when the step started,"
                    + " so there is nothing to grow it back to");
        }
        log.say(fault);
        String job = jobId().get();
        try {
            if (markedByWatch.get().isEmpty()) {
                faultConfirmedAt = LocalDateTime.now();
                recovery.get().confirmAndMark(job, result.faultyNodes());
            }
            overlapNextAttempt = currentStepId != null && recovery.get().stepLingers(job, currentStepId);
            if (overlapNextAttempt) {
                log.say("step " + job + "." + currentStepId + " is still on record with its CPUs on the surviving"
                        + " nodes (Slurm keeps it until the dead node answers); the re-run shares them (--overlap)");
            }
            NodeFaultRecovery.Result repaired = recovery.get().repair(job, result.faultyNodes(), jobSize,
                    faultConfirmedAt, settings.replacementTimeout(), () -> stopSignal.get() != null);
            if (!repaired.repaired()) {
                return Optional.of("cannot repair the job: " + repaired.why());
            }
            JobEnvironment env = new JobEnvironmentResolver(slurm).resolve(job);
            synchronized (freshVariables) {
                freshVariables.clear();
                freshVariables.putAll(env.variables());
                freshVariables.putAll(env.slurmVariables());
            }
            event(EventHistory.Kind.REPLACEMENT, OptionalLong.of(Duration.ofNanos(System.nanoTime() - endedNanos)
                    .toMillis()), "faultyNodes", Hostlist.compress(result.faultyNodes()), "nodeList", env.nodeList(),
                    "masterAddr", env.masterAddr());
            log.say("updating to new node list " + env.nodeList() + " (MASTER_NODE=" + env.masterNode()
                    + " MASTER_ADDR=" + env.masterAddr() + "); " + Duration.ofNanos(System.nanoTime() - endedNanos)
                    .toMillis() + " ms since the step ended");
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.of("recovery failed: " + e.getMessage());
        }
    }

    private static String describe(Classification result) {
        return switch (result.outcome()) {
            case CANCELLED -> "step cancelled: " + result.reason();
            case TIME_LIMIT -> "time limit: " + result.reason();
            case PREEMPTED -> "preempted: " + result.reason();
            case REQUEUED -> "requeued: " + result.reason();
            case INTERRUPTED -> "interrupted: " + result.reason();
            default -> result.outcome() + ": " + result.reason();
        };
    }

    /** srun's own argv, with --overlap after srun when the failed step still holds resources. */
    private List<String> argvFor(List<String> srunArgv) {
        if (!overlapNextAttempt || srunArgv.isEmpty()) {
            return srunArgv;
        }
        List<String> argv = new ArrayList<>(srunArgv.size() + 1);
        argv.add(srunArgv.get(0));
        argv.add("--overlap");
        argv.addAll(srunArgv.subList(1, srunArgv.size()));
        return argv;
    }

    private Map<String, String> childEnvironment(int attempt) {
        Map<String, String> env = new HashMap<>(environment);
        env.remove(SLURM_VERSION_HINT); // the plugin's word to this supervisor, not the step's
        synchronized (freshVariables) {
            env.putAll(freshVariables); // the repaired job's node list, sizes and master
        }
        env.put(GUARD, "1");
        env.put(ATTEMPT, Integer.toString(attempt));
        newestCheckpoint(attempt).ifPresent(path -> env.put(CHECKPOINT, path));
        return env;
    }

    /** Looked up afresh before every attempt: the failed one may have written a newer checkpoint. */
    private Optional<String> newestCheckpoint(int attempt) {
        if (checkpoints.isEmpty()) {
            return Optional.empty();
        }
        try {
            Optional<CheckpointLocator.Checkpoint> newest = checkpoints.get().newest();
            if (newest.isEmpty()) {
                if (attempt > 1) {
                    log.say("no complete checkpoint in " + checkpoints.get().dir() + " (none holds "
                            + checkpoints.get().marker() + "): the step starts from the beginning");
                }
                return Optional.empty();
            }
            log.say("newest complete checkpoint: " + newest.get().path() + " (written "
                    + Duration.between(newest.get().writtenAt(), Instant.now()).toSeconds()
                    + " s ago); " + CHECKPOINT + " names it");
            return Optional.of(newest.get().path().toString());
        } catch (UncheckedIOException e) {
            log.say("cannot look for checkpoints: " + e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Finds the step srun created (its SrunHost:Pid is our child), for the log prefix and the
     * list of hosts the step runs on. Runs beside the step; gives up quietly.
     */
    private Thread startStepLookup(StepProcess step, List<String> stepHosts) {
        Thread thread = new Thread(() -> {
            if (jobId().isEmpty()) {
                return;
            }
            try {
                Thread.sleep(STEP_LOOKUP_DELAY_MS);
            } catch (InterruptedException e) {
                return;
            }
            for (int i = 0; i < STEP_LOOKUP_POLLS && step.isAlive(); i++) {
                try {
                    for (Step s : slurm.steps(jobId().get())) {
                        if (s.srunPid().isPresent() && s.srunPid().getAsInt() == step.pid()) {
                            log.stepId(s.stepId());
                            currentStepId = s.stepId();
                            synchronized (stepHosts) {
                                stepHosts.addAll(Hostlist.expand(s.nodeList()));
                            }
                            watchStepNodes(step, s);
                            return;
                        }
                    }
                    Thread.sleep(STEP_LOOKUP_INTERVAL_MS);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    DebugLogging.debug(StepSupervisor.class, "step lookup failed: {}", e.getMessage());
                }
            }
        }, "step-lookup");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /**
     * Fast detection, when recovery is configured: tells the agent which nodes are this job's
     * (so they stay so after a shrink), then probes their slurmd until the step ends. A node that
     * stops answering is confirmed and marked by the agent, and the step is ended at once instead
     * of waiting for slurmctld's SlurmdTimeout.
     */
    private void watchStepNodes(StepProcess step, Step found) {
        if (recovery.isEmpty()) {
            return;
        }
        String job = found.jobId();
        try {
            recovery.get().recordJobNodes(job);
        } catch (RuntimeException e) {
            log.say("the agent did not record the job's nodes (" + e.getMessage() + ")");
        }
        List<Node> nodes = slurm.nodes(found.nodeList());
        new SlurmdWatch(new TcpNodeProber(PROBE_INTERVAL), PROBE_INTERVAL, PROBE_MISSES).watch(nodes, step::isAlive,
                suspects -> {
                    event(EventHistory.Kind.DETECTION, OptionalLong.empty(), "source", "slurmd-probe", "nodes",
                            Hostlist.compress(suspects), "reason", PROBE_MISSES + " probes in a row missed");
                    log.say("slurmd of " + Hostlist.compress(suspects) + " missed " + PROBE_MISSES
                            + " probes in a row");
                    try {
                        List<String> marked = recovery.get().confirmAndMark(job, suspects);
                        if (!marked.isEmpty() && step.isAlive()) {
                            faultConfirmedAt = LocalDateTime.now();
                            markedByWatch.set(List.copyOf(marked));
                            log.say("ending step " + found.fullId() + " now so it can run again without "
                                    + Hostlist.compress(marked));
                            runner.run(CommandRequest.of("scancel", found.fullId()));
                            recovery.get().dropNow(job, marked);
                            SrunStopper.stop(step, SRUN_GRACE);
                        }
                    } catch (AgentException e) {
                        log.say("the agent could not confirm the fault (" + e.getMessage() + ")");
                    } catch (RuntimeException e) {
                        log.say("could not drop " + Hostlist.compress(suspects) + " from the job yet ("
                                + e.getMessage() + ")");
                    }
                });
    }

    private AttemptEvidence evidence(int status, StepProcess step, List<String> stepHosts) {
        Optional<Job> job = Optional.empty();
        List<Node> nodes = List.of();
        List<String> hosts;
        synchronized (stepHosts) {
            hosts = List.copyOf(stepHosts);
        }
        if (status != 0 && jobId().isPresent()) {
            try {
                job = slurm.job(jobId().get());
                if (hosts.isEmpty() && job.isPresent() && !job.get().nodeList().isEmpty()) {
                    hosts = Hostlist.expand(job.get().nodeList());
                }
                if (!hosts.isEmpty()) {
                    nodes = slurm.nodes(Hostlist.compress(hosts));
                }
            } catch (SlurmException e) {
                log.say("could not read the job's state from Slurm (" + e.getMessage() + ")");
            }
        }
        return new AttemptEvidence(status, Optional.ofNullable(stopSignal.get()), step.stderrTail(), job, hosts, nodes);
    }

    /** The job this srun runs in, read once; empty outside a job or when Slurm does not answer. */
    private Optional<Job> jobAtStart() {
        if (jobId().isEmpty()) {
            log.say("srun runs outside a job allocation: only in-place re-runs are possible");
            return Optional.empty();
        }
        try {
            return Optional.of(slurm.requireJob(jobId().get()));
        } catch (SlurmException e) {
            log.say("could not read job " + jobId().get() + " from Slurm (" + e.getMessage()
                    + "); preflight skipped, and a node fault will not be repaired by resizing");
            return Optional.empty();
        }
    }

    /**
     * Prints the preflight findings once per job, not once per srun. The marker names the job by
     * its id and submit time: job ids come round again (MaxJobId, or a controller started with
     * its state cleared), and a stale marker would hide the findings from a new job.
     */
    private void preflightOncePerJob(Optional<Job> job) {
        if (job.isEmpty()) {
            return;
        }
        String user = environment.getOrDefault("USER", System.getProperty("user.name", "user"));
        String submitted = job.get().raw().getOrDefault("SubmitTime", "").replaceAll("[^0-9]", "");
        Path marker = settings.stateDir().resolve(
                "autoresume-preflight-" + user + "-" + job.get().jobId() + "-" + submitted);
        try {
            Files.createFile(marker);
        } catch (FileAlreadyExistsException e) {
            return;
        } catch (IOException e) {
            DebugLogging.debug(StepSupervisor.class, "cannot write preflight marker {}: {}", marker, e.getMessage());
        }
        try {
            for (PreflightFinding finding : new Preflight().check(slurm.config(), job.get())) {
                log.say("preflight: " + finding.describe());
            }
        } catch (SlurmException e) {
            log.say("preflight skipped: " + e.getMessage());
        }
    }
}
