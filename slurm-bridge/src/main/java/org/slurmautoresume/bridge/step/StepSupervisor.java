package org.slurmautoresume.bridge.step;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slurmautoresume.bridge.hostlist.Hostlist;
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
 * may run again. Node-fault recovery (replacing nodes, growing the job back) is recognised here
 * and reported; the recovery engine acts on it.
 */
public final class StepSupervisor {

    /** Set in the child srun's environment: the plugin lets a supervised srun through. */
    public static final String GUARD = "AUTORESUME_SUPERVISED";
    /** The attempt number, 1 for the first run, exported to srun and so to the tasks. */
    public static final String ATTEMPT = "AUTO_RESUME_ATTEMPT";

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
    private static final long STEP_LOOKUP_JOIN_MS = 2000;

    private final SlurmClient slurm;
    private final SupervisorSettings settings;
    private final Map<String, String> environment;
    private final SupervisorLog log;
    private final AttemptClassifier classifier = new AttemptClassifier();
    private final AtomicReference<SignalNumber> stopSignal = new AtomicReference<>();
    private volatile StepProcess current;

    public StepSupervisor(SlurmClient slurm, SupervisorSettings settings, Map<String, String> environment,
                          SupervisorLog log) {
        this.slurm = slurm;
        this.settings = settings;
        this.environment = Map.copyOf(environment);
        this.log = log;
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
        preflightOncePerJob();
        int appRetriesLeft = settings.maxAppRetries();
        for (int attempt = 1; ; attempt++) {
            if (attempt > 1) {
                log.stepId("?");
                log.say("retrying step, attempt " + attempt);
            }
            StepProcess step = StepProcess.start(srunArgv, childEnvironment(attempt));
            current = step;
            List<String> stepHosts = new ArrayList<>();
            Thread lookup = startStepLookup(step, stepHosts);
            int status = step.waitFor();
            lookup.interrupt();
            if (status != 0) {
                lookup.join(STEP_LOOKUP_JOIN_MS); // its hosts are evidence; a success needs none
            }
            Classification result = classifier.classify(evidence(status, step, stepHosts));
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
                    log.say("node fault: " + result.reason() + "; node replacement is not available in this"
                            + " version, so the step is not re-run (exit " + status + ")");
                    return status;
                default:
                    log.say(describe(result) + "; not re-running (exit " + status + ")");
                    return status;
            }
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

    private Map<String, String> childEnvironment(int attempt) {
        Map<String, String> env = new HashMap<>(environment);
        env.put(GUARD, "1");
        env.put(ATTEMPT, Integer.toString(attempt));
        return env;
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
                            synchronized (stepHosts) {
                                stepHosts.addAll(Hostlist.expand(s.nodeList()));
                            }
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

    private void preflightOncePerJob() {
        if (jobId().isEmpty()) {
            log.say("srun runs outside a job allocation: only in-place re-runs are possible");
            return;
        }
        String user = environment.getOrDefault("USER", System.getProperty("user.name", "user"));
        Path marker = settings.stateDir().resolve("autoresume-preflight-" + user + "-" + jobId().get());
        try {
            Files.createFile(marker);
        } catch (FileAlreadyExistsException e) {
            return;
        } catch (IOException e) {
            log().debug("cannot write preflight marker {}: {}", marker, e.getMessage());
        }
        try {
            Job job = slurm.requireJob(jobId().get());
            for (PreflightFinding finding : new Preflight().check(slurm.config(), job)) {
                log.say("preflight: " + finding.describe());
            }
        } catch (SlurmException e) {
            log.say("preflight skipped: " + e.getMessage());
        }
    }
}
