package org.slurmautoresume.bridge.step;

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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import org.slurmautoresume.bridge.agent.AgentClient;
import org.slurmautoresume.bridge.agent.AgentException;
import org.slurmautoresume.bridge.agent.TcpNodeProber;
import org.slurmautoresume.bridge.env.JobEnvironment;
import org.slurmautoresume.bridge.env.JobEnvironmentResolver;
import org.slurmautoresume.bridge.exec.CommandRequest;
import org.slurmautoresume.bridge.exec.CommandResult;
import org.slurmautoresume.bridge.exec.CommandRunner;
import org.slurmautoresume.bridge.hostlist.Hostlist;
import org.slurmautoresume.bridge.recovery.JobResizer;
import org.slurmautoresume.bridge.recovery.NodeFaultRecovery;
import org.slurmautoresume.bridge.recovery.Replacement;
import org.slurmautoresume.bridge.recovery.ReplacementProvider;
import org.slurmautoresume.bridge.recovery.ReturningNodeProvider;
import org.slurmautoresume.bridge.recovery.SpareProvider;
import org.slurmautoresume.bridge.recovery.SlurmdWatch;
import org.slurmautoresume.bridge.checkpoint.CheckpointLocator;
import org.slurmautoresume.bridge.model.Job;
import org.slurmautoresume.bridge.model.Node;
import org.slurmautoresume.bridge.model.Step;
import org.slurmautoresume.bridge.slurm.SlurmClient;
import org.slurmautoresume.bridge.slurm.SlurmException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
    /** The newest complete checkpoint in AUTORESUME_CHECKPOINT_DIR, for the step to resume from. */
    public static final String CHECKPOINT = "AUTO_RESUME_CHECKPOINT";

    /**
     * Looked up when first used, not when the class loads: a supervised step that ends well
     * never starts the logging framework (about a quarter of the classes a start-up loads).
     */
    private static Logger log() {
        return LoggerFactory.getLogger(StepSupervisor.class);
    }
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

    private final SlurmClient slurm;
    private final CommandRunner runner;
    private final Optional<NodeFaultRecovery> recovery;
    private final AtomicReference<List<String>> markedByWatch = new AtomicReference<>(List.of());
    /** When the fault being recovered from was confirmed: a node back under its name started after it. */
    private volatile LocalDateTime faultConfirmedAt = LocalDateTime.now();
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

    public StepSupervisor(SlurmClient slurm, CommandRunner runner, SupervisorSettings settings,
                          Map<String, String> environment, SupervisorLog log) {
        this.slurm = slurm;
        this.runner = runner;
        AgentClient agent = new AgentClient(settings.agentSocket(), AGENT_TIMEOUT);
        this.recovery = settings.replacement().map(kind -> new NodeFaultRecovery(slurm, agent,
                new JobResizer(runner, slurm, ALLOCATION_TIMEOUT), provider(kind, settings, slurm, agent, log), log::say));
        this.settings = settings;
        this.environment = Map.copyOf(environment);
        this.log = log;
        this.checkpoints = CheckpointLocator.fromEnvironment(environment);
    }

    private static ReplacementProvider provider(Replacement kind, SupervisorSettings settings, SlurmClient slurm,
                                                AgentClient agent, SupervisorLog log) {
        return kind == Replacement.SPARE ? new SpareProvider(settings.spares().orElseThrow(), slurm)
                : new ReturningNodeProvider(kind, slurm, agent, log::say);
    }

    private Optional<String> jobId() {
        return Optional.ofNullable(environment.get("SLURM_JOB_ID")).filter(s -> !s.isBlank());
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
            log().debug("{} came from the terminal to the whole process group; not forwarding", signal.displayName());
            return;
        }
        if (!step.signal(signal)) {
            log().debug("could not forward {} to srun {}", signal.displayName(), step.pid());
        }
    }

    /** Runs the step until it succeeds or must not run again; returns the exit status to end with. */
    public int run(List<String> srunArgv) throws InterruptedException {
        Optional<Job> job = jobAtStart();
        preflightOncePerJob(job);
        int appRetriesLeft = settings.maxAppRetries();
        int nodeRetriesLeft = settings.maxNodeRetries();
        int jobSize = recovery.isPresent() ? job.map(Job::numNodes).orElse(0) : 0;
        for (int attempt = 1; ; attempt++) {
            if (attempt > 1) {
                log.stepId("?");
                log.say("retrying step, attempt " + attempt);
            }
            markedByWatch.set(List.of());
            currentStepId = null;
            StepProcess step = StepProcess.start(argvFor(srunArgv), childEnvironment(attempt));
            current = step;
            List<String> stepHosts = new ArrayList<>();
            Thread lookup = startStepLookup(step, stepHosts);
            int status = step.waitFor();
            long ended = System.nanoTime();
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
            switch (result.outcome()) {
                case SUCCEEDED:
                    if (attempt > 1) {
                        log.say("step succeeded on attempt " + attempt);
                    }
                    return 0;
                case APP_FAILURE:
                    if (appRetriesLeft > 0 && stopSignal.get() == null) {
                        appRetriesLeft--;
                        log.say("application failure: " + result.reason() + "; re-running in place ("
                                + appRetriesLeft + " application retries left)");
                        continue;
                    }
                    log.say("application failure: " + result.reason() + "; not re-running ("
                            + SupervisorSettings.MAX_APP_RETRIES + "=" + settings.maxAppRetries() + ")");
                    return status;
                case NODE_FAULT:
                    if (nodeRetriesLeft == 0) {
                        return exhausted(status, "node fault: " + result.reason() + "; node retries used up ("
                                + SupervisorSettings.MAX_NODE_RETRIES + "=" + settings.maxNodeRetries() + ")");
                    }
                    Optional<String> notRepaired = repairAfterNodeFault(result, jobSize, ended);
                    if (notRepaired.isEmpty()) {
                        nodeRetriesLeft--;
                        continue;
                    }
                    return exhausted(status, notRepaired.get());
                default:
                    log.say(describe(result) + "; not re-running (exit " + status + ")");
                    return status;
            }
        }
    }

    /**
     * Past what recovery can do: ends with the step's status, or, when so configured, has Slurm
     * requeue the whole batch job (the job script runs again from the start).
     */
    private int exhausted(int status, String why) {
        if (stopSignal.get() != null || settings.onExhausted() == SupervisorSettings.OnExhausted.EXIT
                || jobId().isEmpty()) {
            log.say(why + "; not re-running (exit " + status + ")");
            return status;
        }
        log.say(why + "; requeueing the whole job (" + SupervisorSettings.ON_EXHAUSTED + "=requeue)");
        CommandResult requeue = runner.run(CommandRequest.of("scontrol", "requeue", jobId().get()));
        if (!requeue.succeeded()) {
            log.say("Slurm did not requeue job " + jobId().get() + " (" + requeue.diagnosticTail().strip()
                    + "); ending with exit " + status);
        }
        return status;
    }

    /** Marks, drops and replaces the faulty nodes; empty when the step may run again, else why not. */
    private Optional<String> repairAfterNodeFault(Classification result, int jobSize, long endedNanos) {
        String fault = "node fault: " + result.reason();
        if (recovery.isEmpty() || jobId().isEmpty()) {
            return Optional.of(fault + "; no replacement is configured (" + SupervisorSettings.REPLACEMENT
                    + ", or a spare pool: AUTORESUME_SPARE_PARTITION, AUTORESUME_SPARE_FEATURE or AUTORESUME_SPARE_NODES)");
        }
        if (result.faultyNodes().isEmpty()) {
            return Optional.of(fault + "; Slurm did not say which node failed");
        }
        if (jobSize <= 0) {
            return Optional.of(fault + "; the job's size could not be read from Slurm when the step started,"
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
                    log().debug("step lookup failed: {}", e.getMessage());
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
                            stopSrun(step);
                        }
                    } catch (AgentException e) {
                        log.say("the agent could not confirm the fault (" + e.getMessage() + ")");
                    } catch (RuntimeException e) {
                        log.say("could not drop " + Hostlist.compress(suspects) + " from the job yet ("
                                + e.getMessage() + ")");
                    }
                });
    }

    /**
     * After the step was cancelled because a node died: srun would wait up to 7 s for the dead
     * node's tasks, which will never report. Their step is cancelled and the healthy nodes' tasks
     * are killed by their slurmstepd, so srun is given a moment and then killed.
     */
    private static void stopSrun(StepProcess step) {
        ProcessHandle.of(step.pid()).ifPresent(srun -> {
            try {
                srun.onExit().get(SRUN_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                srun.destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                throw new IllegalStateException("waiting for srun to end failed", e);
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
            log().debug("cannot write preflight marker {}: {}", marker, e.getMessage());
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
