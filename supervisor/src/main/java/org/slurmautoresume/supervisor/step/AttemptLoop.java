package org.slurmautoresume.supervisor.step;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.exec.DebugLogging;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.probe.NodeProber;
import org.slurmautoresume.supervisor.checkpoint.CheckpointLocator;
import org.slurmautoresume.supervisor.checkpoint.CheckpointMonitor;
import org.slurmautoresume.supervisor.config.AutoresumeConfig;
import org.slurmautoresume.supervisor.policy.Decision;
import org.slurmautoresume.supervisor.policy.Fault;
import org.slurmautoresume.supervisor.policy.FaultKind;
import org.slurmautoresume.supervisor.policy.SignalNumber;
import org.slurmautoresume.supervisor.rules.RuleViolation;
import org.slurmautoresume.supervisor.step.diagnosis.AttemptClassifier;
import org.slurmautoresume.supervisor.step.diagnosis.AttemptEvidence;
import org.slurmautoresume.supervisor.step.diagnosis.Classification;
import org.slurmautoresume.supervisor.step.diagnosis.NodeRegistration;
import org.slurmautoresume.supervisor.step.diagnosis.NodeVerdicts;
import org.slurmautoresume.supervisor.step.diagnosis.Outcome;
import org.slurmautoresume.supervisor.step.launch.Srun;
import org.slurmautoresume.supervisor.step.launch.SrunLauncher;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobTimeline;
import org.slurmautoresume.supervisor.step.record.PhasePause;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;
import org.slurmautoresume.supervisor.step.restart.AfterAttempt;
import org.slurmautoresume.supervisor.step.restart.Attempt;
import org.slurmautoresume.supervisor.step.restart.AttemptEnd;
import org.slurmautoresume.supervisor.step.restart.EndOfAttempt;
import org.slurmautoresume.supervisor.step.restart.InJobSpares;
import org.slurmautoresume.supervisor.step.restart.KnownPaths;
import org.slurmautoresume.supervisor.step.restart.NextAttempt;
import org.slurmautoresume.supervisor.step.restart.RestartActions;
import org.slurmautoresume.supervisor.step.restart.RestartGate;
import org.slurmautoresume.supervisor.step.restart.SameFailures;
import org.slurmautoresume.supervisor.step.watch.RuleWatch;
import org.slurmautoresume.supervisor.step.watch.StepWatch;

/**
 * The attempt loop: start srun, watch it, classify how it ended, ask the restart gate what to
 * do, have the restart actions do it, and again until the step succeeded or must not run again.
 * Each attempt is one {@link Attempt}, which its watch writes into and which is dropped at its
 * end; what the next attempt inherits is the {@link NextAttempt} the restart actions return,
 * held here between attempts. It also passes the supervisor's signals on to the srun that runs.
 */
final class AttemptLoop {

    private final SrunLauncher launcher;
    private final SlurmClient slurm;
    private final Optional<JobId> jobId;
    private final SupervisorLog log;
    private final JobTimeline timeline;
    private final RestartActions actions;
    private final AttemptLaunch launch;
    private final AutoresumeConfig config;
    private final Optional<CheckpointLocator> checkpoints;
    private final Supplier<NodeProber> prober;
    private final JobNodeRecords nodeRecords;
    private final AttemptClassifier classifier = new AttemptClassifier();
    private final StopRequest stop;
    private volatile Srun current;
    /** When the previous attempt's srun ended (System.nanoTime), for the relaunch latency; 0 before any. */
    private long previousAttemptEnded;
    /** The attempts up to the last one that failed the same way: a restart loop once it is long enough. */
    private SameFailures sameFailures = SameFailures.NONE;
    /** Attempts in a row srun could not start for want of slurmctld. */
    private int unstartedInARow;
    /** Each waited for slurmctld first: only a controller that answers and then refuses the step again runs this out. */
    private static final int MAX_UNSTARTED = 5;

    AttemptLoop(
            SrunLauncher launcher,
            SlurmClient slurm,
            Optional<JobId> jobId,
            SupervisorLog log,
            JobTimeline timeline,
            RestartActions actions,
            StopRequest stop,
            AttemptLaunch launch,
            AutoresumeConfig config,
            Optional<CheckpointLocator> checkpoints,
            Supplier<NodeProber> prober,
            JobNodeRecords nodeRecords) {
        this.launcher = launcher;
        this.slurm = slurm;
        this.jobId = jobId;
        this.log = log;
        this.timeline = timeline;
        this.actions = actions;
        this.stop = stop;
        this.launch = launch;
        this.config = config;
        this.checkpoints = checkpoints;
        this.prober = prober;
        this.nodeRecords = nodeRecords;
    }

    /** A signal to the supervisor: passed to the running srun unless the terminal already sent it there. */
    void onSignal(SignalNumber signal, boolean alreadyDeliveredToGroup) {
        if (signal.meansStop()) {
            stop.received(signal);
        }
        Srun step = current;
        if (step == null || !step.isAlive()) {
            return;
        }
        if (alreadyDeliveredToGroup) {
            DebugLogging.debug(
                    AttemptLoop.class,
                    "{} came from the terminal to the whole process group; not forwarding",
                    signal.displayName());
            return;
        }
        if (!step.signal(signal)) {
            DebugLogging.debug(AttemptLoop.class, "could not forward {} to srun {}", signal.displayName(), step.pid());
        }
    }

    /**
     * What the supervisor learns of the job once: the budgets and the job's size. Worked out while
     * the first srun starts, not before: nothing needs them until an attempt ends or a rule fires,
     * and reading them (an scontrol round trip, the preflight, the budget files) would otherwise
     * delay the step's start.
     */
    record JobStart(RestartGate gate, int jobSize, KnownPaths known) {}

    private final CompletableFuture<JobStart> jobStart = new CompletableFuture<>();

    /**
     * Runs the step until it succeeds or must not run again; returns the exit status to end with.
     * {@code afterFirstLaunch} runs once, right after the first srun has started, given the step's
     * in-job spares plan.
     */
    int run(List<String> srunArgv, Function<Optional<InJobSpares>, JobStart> afterFirstLaunch)
            throws InterruptedException {
        ScheduledExecutorService ticker =
                config.watchedRules().isEmpty() && config.checkpointMonitoring().isEmpty()
                        ? null
                        : daemonScheduler("log-rules");
        // Checkpoint scans read a file system that may hang (NFS): never on the log rules' thread.
        ScheduledExecutorService scanner =
                config.checkpointMonitoring().isEmpty() ? null : daemonScheduler("checkpoint-scan");
        Optional<InJobSpares> spares = jobId.isPresent() ? launch.inJobSpares(srunArgv) : Optional.empty();
        spares.ifPresent(plan -> {
            log.say("in-job spares: the step runs on " + Hostlist.compress(plan.stepNodes()) + " of the job's "
                    + Hostlist.compress(plan.jobNodes()) + "; " + Hostlist.compress(plan.spares())
                    + " wait" + (plan.spares().size() == 1 ? "s" : "") + " to replace a failed node");
        });
        // The first attempt's NODE_LIST, MASTER_NODE, MASTER_ADDR, NNODES: a repair replaces them, a re-run in place
        // keeps them.
        Map<String, String> firstVariables = jobId.isEmpty()
                ? Map.of()
                : launch.firstAttemptNodes(spares)
                        .map(nodes -> nodes.variables(nodeRecords.addressOf(nodes.master())))
                        .orElse(Map.of());
        NextAttempt next = NextAttempt.first(spares, firstVariables);
        Supplier<JobStart> jobStartWork = () -> afterFirstLaunch.apply(spares);
        try {
            for (int number = 1; ; number++) {
                if (number > 1) {
                    // Said under the id of the step being retried; the new step's lines carry its own once found.
                    log.stepId(timeline.stepId().orElse("?"));
                    log.say("retrying step, attempt " + number);
                    log.stepId("?");
                }
                AfterAttempt after = runAttempt(srunArgv, new Attempt(number, next), jobStartWork, ticker, scanner);
                if (after instanceof AfterAttempt.End end) {
                    return end.status();
                }
                next = ((AfterAttempt.RunAgain) after).next();
            }
        } finally {
            if (ticker != null) {
                ticker.shutdownNow();
            }
            if (scanner != null) {
                scanner.shutdownNow();
            }
        }
    }

    /** One attempt, start to decision: what the next attempt inherits, or the status to end with. */
    private AfterAttempt runAttempt(
            List<String> srunArgv,
            Attempt attempt,
            Supplier<JobStart> afterFirstLaunch,
            ScheduledExecutorService ticker,
            ScheduledExecutorService scanner)
            throws InterruptedException {
        int number = attempt.number();
        NextAttempt inherited = attempt.inherited();
        timeline.beginAttempt(number);
        RuleWatch rules = ticker == null
                ? null
                : new RuleWatch(
                        config.watchedRules(),
                        config.checkpointMonitoring()
                                .map(rule ->
                                        new CheckpointMonitor(rule, checkpoints.orElseThrow(), InstantSource.system())),
                        InstantSource.system(),
                        ticker,
                        scanner,
                        violation -> onRuleViolation(attempt, violation),
                        progress -> timeline.record(
                                EventHistory.Kind.PROGRESS,
                                OptionalLong.empty(),
                                "source",
                                progress.source(),
                                "signAt",
                                progress.at().toString()));
        // With in-job spares srun is told its nodes: they are probed from its start (records read ahead).
        Optional<List<Node>> knownNodes = inherited.placedOn().flatMap(nodeRecords::cached);
        if (number > 1) {
            actions.pauseAt(PhasePause.Phase.RERUN);
        }
        Srun step;
        try {
            step = launcher.start(
                    AttemptLaunch.argv(srunArgv, inherited.overlap(), inherited.placedOn()),
                    launch.environment(number, inherited.variables()),
                    rules == null ? null : rules.observer());
        } catch (RuntimeException e) {
            if (rules != null) {
                rules.close();
            }
            throw e;
        }
        current = step;
        if (number == 1) {
            completeJobStart(afterFirstLaunch);
        }
        // Before the first event: the job start checks for a stale timeline file left by an earlier job.
        JobStart start = jobStart.join();
        RestartGate gate = start.gate();
        int jobSize = start.jobSize();
        Optional<StepWatch.SlurmdFindings> findings = actions.slurmdFindings(attempt, start.known());
        StepWatch watch = new StepWatch(
                slurm,
                jobId,
                log,
                timeline,
                prober,
                findings,
                rules,
                knownNodes,
                () -> actions.pauseAt(PhasePause.Phase.LOOKUP));
        timeline.record(
                EventHistory.Kind.LAUNCH,
                previousAttemptEnded == 0
                        ? OptionalLong.empty()
                        : OptionalLong.of(Duration.ofNanos(System.nanoTime() - previousAttemptEnded)
                                .toMillis()),
                "srunPid",
                Long.toString(step.pid()),
                // What can show this attempt's progress: without either, its restart cannot be told from its work.
                "progressBy",
                rules == null ? "" : String.join(",", rules.progressSources()));
        watch.follow(step);
        int status = step.waitFor();
        long ended = System.nanoTime();
        previousAttemptEnded = ended;
        watch.attemptEnded(status);
        if (status != 0) {
            actions.pauseAt(PhasePause.Phase.DIAGNOSIS);
        }
        AttemptEvidence evidence =
                AttemptEvidence.gather(status, stop.signal(), step.stderrTail(), watch.hosts(), jobId, slurm, log::say);
        Classification result = classifier.classify(evidence);
        Optional<Attempt.RuleStop> stopped = attempt.ruleStop();
        // A hang a rule ended is diagnosed like a failure on healthy nodes: a GPU that hangs a
        // collective (an NVLink down) shows in its node's checks, and the node is replaced, not re-run on.
        Outcome outcome = result.outcome();
        boolean ruleEnded = stopped.isPresent() && (stopped.get().acted() || outcome != Outcome.SUCCEEDED);
        boolean detected = stopped.isPresent() || attempt.watchMark().isPresent();
        if ((result.outcome() == Outcome.APP_FAILURE || (ruleEnded && result.outcome() != Outcome.NODE_FAULT))
                && !stop.requested()
                && findings.isPresent()) {
            Classification asked = askedTheAgents(result, evidence.stepNodesAfter(), ended);
            detected |= asked != result;
            result = asked;
        }
        if (result.outcome() == Outcome.NODE_FAULT && !detected) {
            foundAtTheEnd(result, ended);
        }
        Optional<Attempt.WatchMark> marked = attempt.watchMark();
        if (marked.isPresent() && !stop.requested()) {
            // We ended the step ourselves (scancel) because of its node: not a user's cancel.
            result = new Classification(
                    Outcome.NODE_FAULT,
                    marked.get().finding() + " and the agent confirmed it",
                    marked.get().nodes());
        }
        List<String> ending = new java.util.ArrayList<>(java.util.Arrays.asList(
                "status", Integer.toString(status), "outcome", result.outcome().name(), "reason", result.reason()));
        if (rules != null && config.checkpointMonitoring().isPresent()) {
            // The work a fault makes the job redo runs from here; only the checkpoint rule knows it.
            ending.addAll(List.of(
                    "checkpointAt",
                    rules.newestCheckpoint().map(Instant::toString).orElse("none")));
        }
        timeline.record(EventHistory.Kind.ATTEMPT_ENDED, OptionalLong.empty(), ending.toArray(String[]::new));
        AttemptEnd end = new AttemptEnd(status, result, timeline.stepId(), jobSize, ended);
        Optional<Attempt.RuleStop> ruleStop = ruleEnded ? stopped : Optional.empty();
        if (result.outcome() != Outcome.NOT_STARTED) {
            // An attempt that never started is no evidence either way: the run goes on past it.
            sameFailures = sameFailures.after(
                    number,
                    SameFailures.signatureOf(result, ruleStop, status, evidence.stderrTail(), evidence.stepHosts()));
        }
        EndOfAttempt verdict =
                EndOfAttempt.of(result, ruleStop, stop.requested(), sameFailures, actions.sameFailureLimit());
        if (verdict instanceof EndOfAttempt.RepeatedFailure repeated) {
            return actions.stopRepeating(repeated, end);
        }
        if (verdict instanceof EndOfAttempt.RuleDecided rule) {
            return actions.carryOut(
                    rule.rule().decision(), rule.rule().fault(), rule.what(), end, gate, attempt, start.known());
        }
        if (result.outcome() != Outcome.NOT_STARTED) {
            unstartedInARow = 0;
        }
        if (verdict instanceof EndOfAttempt.Succeeded) {
            timeline.record(EventHistory.Kind.SUCCEEDED, OptionalLong.empty());
            if (number > 1) {
                log.say("step succeeded on attempt " + number);
            }
            return AfterAttempt.end(0);
        }
        if (verdict instanceof EndOfAttempt.StopInstead told) {
            log.say(told.what() + "; not re-running (exit " + status + "): the supervisor was told to stop");
            return AfterAttempt.end(status);
        }
        if (verdict instanceof EndOfAttempt.Restartable restartable) {
            Fault fault = new Fault(restartable.kind(), Instant.now(), false, result.reason());
            return actions.carryOut(gate.decide(fault), fault, restartable.what(), end, gate, attempt, start.known());
        }
        if (verdict instanceof EndOfAttempt.NotStarted) {
            return startAgain(result, status, inherited);
        }
        log.say(((EndOfAttempt.NotRerun) verdict).what() + "; not re-running (exit " + status + ")");
        return AfterAttempt.end(status);
    }

    /**
     * srun could not start the step for want of slurmctld, or of a node a restarted slurmctld has
     * not heard from yet: nothing ran, so no budget is spent. The next attempt starts once
     * slurmctld answers and those nodes registered; if slurmctld stays away past the outage bound,
     * the step ends with srun's status as it would have without the supervisor.
     */
    private AfterAttempt startAgain(Classification result, int status, NextAttempt inherited)
            throws InterruptedException {
        if (stop.requested() || jobId.isEmpty() || ++unstartedInARow > MAX_UNSTARTED) {
            log.say(result.reason() + "; not starting it again (exit " + status + ")");
            return AfterAttempt.end(status);
        }
        log.say(result.reason() + "; starting it again once slurmctld answers (no restart budget is spent)");
        try {
            slurm.requireJob(jobId.get()); // rides the outage
            if (!result.faultyNodes().isEmpty()
                    && !NodeRegistration.await(slurm, result.faultyNodes(), NodeRegistration.WAIT)) {
                log.say(Hostlist.compress(result.faultyNodes()) + " not registered with slurmctld after "
                        + NodeRegistration.WAIT.toSeconds() + " s; starting the step again all the same");
            }
            return AfterAttempt.runAgain(inherited);
        } catch (RuntimeException e) {
            log.say("slurmctld still does not answer (" + e.getMessage() + "); the step ends unstarted (exit " + status
                    + ")");
            return AfterAttempt.end(status);
        }
    }

    /**
     * An application failure on nodes whose own agent marked them meanwhile is a node fault
     * ({@link NodeVerdicts}). The detection's latency runs from the attempt's end ({@code ended},
     * nanoTime), the first sign of the fault the supervisor has, to the agents' verdict.
     */
    private Classification askedTheAgents(Classification result, List<Node> stepNodes, long ended)
            throws InterruptedException {
        List<Node> out = NodeVerdicts.unhealthy(prober.get(), stepNodes, slurm);
        if (out.isEmpty()) {
            return result;
        }
        List<String> names = out.stream().map(Node::name).toList();
        String why = NodeVerdicts.reason(out);
        timeline.record(
                EventHistory.Kind.DETECTION,
                OptionalLong.of(Duration.ofNanos(System.nanoTime() - ended).toMillis()),
                "source",
                "agent-verdict",
                "nodes",
                Hostlist.compress(names),
                "reason",
                why);
        log.say("the attempt failed, and " + why);
        return new Classification(Outcome.NODE_FAULT, why, names);
    }

    /**
     * A node fault that no watch found while the step ran, found once srun ended: in Slurm's
     * records of the job and its nodes (a node its agent marked after the tasks died, a node
     * Slurm took down) or in srun's own words. The latency runs from the attempt's end.
     */
    private void foundAtTheEnd(Classification result, long ended) {
        timeline.record(
                EventHistory.Kind.DETECTION,
                OptionalLong.of(Duration.ofNanos(System.nanoTime() - ended).toMillis()),
                "source",
                "attempt-end",
                "nodes",
                Hostlist.compress(result.faultyNodes()),
                "reason",
                result.reason());
    }

    private void completeJobStart(Supplier<JobStart> afterFirstLaunch) {
        try {
            jobStart.complete(afterFirstLaunch.get());
        } catch (RuntimeException e) {
            jobStart.completeExceptionally(e);
            throw e;
        }
    }

    /**
     * A log rule fired while the step runs (on its own thread, see {@link RuleWatch}): logs the
     * evidence, decides at once (the decision says whether to dump first), and has the step stopped.
     */
    private void onRuleViolation(Attempt attempt, RuleViolation violation) {
        RestartGate gate = jobStart.join().gate(); // a rule may fire before the first srun's start-up work is done
        Srun step = current;
        Fault fault = new Fault(
                FaultKind.RULE_VIOLATION,
                violation.detectedAt(),
                step.isAlive(),
                violation.rule() + " " + violation.state());
        Decision decision = gate.decide(fault);
        attempt.ruleFired(new Attempt.RuleStop(violation, fault, decision, false));
        long sinceEvidence = Duration.between(
                        violation.lastMatchAt().orElse(violation.startedAt()), violation.detectedAt())
                .toMillis();
        log.say(violation.describe() + "; detected at " + violation.detectedAt() + ", " + sinceEvidence + " ms after "
                + violation.evidenceName());
        timeline.record(
                EventHistory.Kind.DETECTION,
                OptionalLong.of(sinceEvidence),
                "source",
                violation.source().eventName(),
                "rule",
                violation.rule(),
                "state",
                violation.state().name(),
                "reason",
                violation.reason(),
                "lastMatch",
                violation.lastMatchLine().orElse(""),
                "lastMatchAt",
                violation.lastMatchAt().map(Instant::toString).orElse(""));
        if (!step.isAlive()) {
            return;
        }
        attempt.ruleFired(new Attempt.RuleStop(violation, fault, decision, true));
        actions.stopForRule(step, decision, violation);
    }

    private static ScheduledExecutorService daemonScheduler(String name) {
        return Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
    }
}
