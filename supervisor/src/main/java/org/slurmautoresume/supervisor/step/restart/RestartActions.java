package org.slurmautoresume.supervisor.step.restart;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.client.WriteResult;
import org.slurmautoresume.slurm.env.JobEnvironment;
import org.slurmautoresume.slurm.env.JobEnvironmentResolver;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.SlurmConfig;
import org.slurmautoresume.supervisor.policy.Decision;
import org.slurmautoresume.supervisor.policy.Fault;
import org.slurmautoresume.supervisor.policy.FaultKind;
import org.slurmautoresume.supervisor.recovery.NodeFaultRecovery;
import org.slurmautoresume.supervisor.rules.RuleViolation;
import org.slurmautoresume.supervisor.step.diagnosis.Classification;
import org.slurmautoresume.supervisor.step.launch.Srun;
import org.slurmautoresume.supervisor.step.launch.SrunStopper;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobTimeline;
import org.slurmautoresume.supervisor.step.record.PhasePause;
import org.slurmautoresume.supervisor.step.record.RestartHistoryFile;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;
import org.slurmautoresume.supervisor.step.watch.StepWatch;

/**
 * Carries out what was decided about a fault: re-run in place, mark and replace nodes and
 * re-run on the repaired job, requeue the whole job, or give up; and, while a step still runs,
 * ends it for nodes whose slurmd fell silent (mark, scancel, shrink) or for a log rule (dump,
 * scancel). The one place where the supervisor changes Slurm's or the agent's state. It keeps
 * nothing between attempts: what an attempt ran with comes in with the {@link Attempt}, and what
 * the next one inherits goes back as the {@link AfterAttempt} value the attempt loop holds.
 */
public final class RestartActions {

    private final SlurmClient slurm;
    private final SlurmControl control;
    private final Optional<NodeFaultRecovery> recovery;
    /** Recovery for a step with in-job spares: the configured one, else one that only shrinks the job. */
    private final Optional<NodeFaultRecovery> spareRecovery;

    private final SupervisorSettings settings;
    private final Optional<JobId> jobId;
    private final SupervisorLog log;
    private final JobTimeline timeline;
    private final Optional<RestartHistoryFile> historyFile;
    /** True once the supervisor was told to stop: a repair waiting for nodes gives up. */
    private final BooleanSupplier stopRequested;
    /** The end of the node-fault path when no repair is left. */
    private final NodeFaultRequeue fallback;
    /** A test's pause at one phase of recovery (none unless the job's environment asks for it). */
    private final PhasePause pause;

    /** @param spareRecovery what repairs a step that has in-job spares ({@link NextAttempt#spares()}) */
    public RestartActions(
            SlurmClient slurm,
            CommandRunner runner,
            Optional<NodeFaultRecovery> recovery,
            Optional<NodeFaultRecovery> spareRecovery,
            SupervisorSettings settings,
            Optional<JobId> jobId,
            SupervisorLog log,
            JobTimeline timeline,
            Optional<RestartHistoryFile> historyFile,
            BooleanSupplier stopRequested,
            PhasePause pause) {
        this.slurm = slurm;
        this.pause = pause;
        this.spareRecovery = spareRecovery;
        this.control = new SlurmControl(runner);
        this.recovery = recovery;
        this.settings = settings;
        this.jobId = jobId;
        this.log = log;
        this.timeline = timeline;
        this.historyFile = historyFile;
        this.stopRequested = stopRequested;
        this.fallback = new NodeFaultRequeue(
                slurm, control, spareRecovery, settings.nodeFaultFallback(), log, timeline, stopRequested);
    }

    /**
     * What answers the slurmd probes' findings for {@code attempt}, writing what it marks into it:
     * present with recovery, in-job spares, or a requeue to follow (node marked, before SlurmdTimeout).
     */
    public Optional<StepWatch.SlurmdFindings> slurmdFindings(Attempt attempt, KnownPaths known) {
        Optional<NodeFaultRecovery> watcher = watcher(attempt.inherited());
        if (watcher.isEmpty()) {
            return Optional.empty();
        }
        Optional<NodeFaultRecovery> active = active(attempt.inherited());
        // A job to be requeued keeps its size; any other loses the node, or cannot end while it is dead.
        return Optional.of(new WatchResponse(
                attempt,
                watcher.get(),
                marked -> active.isPresent()
                        && (noRepairFor(known, attempt.inherited(), marked).isEmpty() || !known.requeueAtEnd()),
                known.agentAway(),
                control,
                pause,
                log,
                timeline));
    }

    /**
     * Who confirms and marks a silent node: the active recovery, else, when a requeue may follow,
     * the agent alone (without an agent on this host Slurm's own DOWN has to do).
     */
    private Optional<NodeFaultRecovery> watcher(NextAttempt attempt) {
        return active(attempt).isPresent()
                ? active(attempt)
                : jobId.isPresent() && fallback.enabled() && Files.exists(settings.agentSocket())
                        ? spareRecovery
                        : Optional.empty();
    }

    /** The recovery that repairs this step: with in-job spares the spares' one. */
    private Optional<NodeFaultRecovery> active(NextAttempt attempt) {
        return attempt.spares().isEmpty() ? recovery : spareRecovery;
    }

    /** Learns, once the job was read, which ways back it has: records them and returns them, with their description. */
    public KnownPaths knowPaths(
            Job job, Optional<SlurmConfig> config, Optional<String> agentAway, Optional<InJobSpares> spares) {
        RecoveryPaths paths = config.map(c -> RecoveryPaths.of(c, job)).orElse(RecoveryPaths.UNKNOWN);
        NodeFaultRequeue.Verdict requeue = fallback.verdict(Optional.of(job), config);
        timeline.record(
                EventHistory.Kind.PATHS,
                OptionalLong.empty(),
                RecoveryPaths.withAgent(paths.details(spares, recovery.isPresent(), requeue), agentAway));
        return new KnownPaths(
                paths,
                requeue.requeue(),
                agentAway,
                paths.describe(spares, recovery.isPresent(), requeue)
                        + RecoveryPaths.agentPart(agentAway, Files.exists(settings.agentSocket())));
    }

    /** Why nothing can repair the job after these nodes failed, known without trying; empty when something may. */
    private Optional<String> noRepairFor(KnownPaths known, NextAttempt attempt, List<String> failed) {
        return known.paths()
                .noRepairFor(
                        attempt.spares(),
                        attempt.stepNodes(),
                        attempt.faultyWith(failed),
                        recovery.isPresent(),
                        () -> Hostlist.expand(
                                slurm.requireJob(jobId.orElseThrow().toString()).nodeList()));
    }

    /** Pauses here when a test asked for it at this phase (see {@link PhasePause}). */
    public void pauseAt(PhasePause.Phase phase) {
        pause.at(phase);
    }

    /** Ends a step a log rule fired on: a dump first when the decision asks for one, then scancel. */
    public void stopForRule(Srun srun, Decision decision, RuleViolation violation) {
        SrunStopper.stopForRule(srun, decision, violation, log, timeline, jobId, control);
    }

    /**
     * Does what the restart policy decided about {@code attempt}'s end. {@code what} names the
     * fault for the log. Returns what the next attempt inherits when the step is to run again (the
     * attempt's own after a re-run in place, the repaired job's after a repair), else the status
     * to end with.
     */
    public AfterAttempt carryOut(
            Decision decision,
            Fault fault,
            String what,
            AttemptEnd end,
            RestartGate gate,
            Attempt attempt,
            KnownPaths known) {
        timeline.record(
                EventHistory.Kind.DECISION,
                OptionalLong.empty(),
                "fault",
                fault.kind().name(),
                "strategy",
                decision.strategy().configName(),
                "level",
                decision.level().name(),
                "reason",
                decision.describe(),
                "stepRestartsLeft",
                Integer.toString(decision.budget().stepRestartsLeft()));
        switch (decision.level()) {
            case RERUN_IN_PLACE:
                log.say(what + "; re-running in place: " + decision.describe());
                remember(gate, decision);
                return AfterAttempt.runAgain(attempt.inherited());
            case REPLACE_NODES_AND_RERUN: {
                Repair repair = repairAfterNodeFault(end, attempt, known);
                if (repair.next().isPresent()) {
                    log.say(decision.describe());
                    remember(gate, decision);
                    return AfterAttempt.runAgain(repair.next().get());
                }
                return carryOut(
                        gate.decideWithoutStepRestart(fault, repair.whyNot()), fault, what, end, gate, attempt, known);
            }
            case REQUEUE_JOB:
                return AfterAttempt.end(requeue(decision, fault, what, end.status(), gate));
            default:
                if (fault.kind() == FaultKind.NODE_FAULT
                        && jobId.isPresent()
                        && fallback.tryRequeue(
                                jobId.get(),
                                end.result().faultyNodes(),
                                attempt.faultyNodesMarked(),
                                what + "; " + RestartGate.whyNot(decision, fault.kind()))) {
                    return AfterAttempt.end(end.status());
                }
                timeline.record(
                        EventHistory.Kind.GIVE_UP,
                        OptionalLong.empty(),
                        "status",
                        Integer.toString(end.status()),
                        "reason",
                        RestartGate.whyNot(decision, fault.kind()));
                log.say(what + "; " + RestartGate.whyNot(decision, fault.kind()) + "; not re-running (exit "
                        + end.status() + "): " + decision.describe());
                return AfterAttempt.end(end.status());
        }
    }

    /** How many attempts in a row may fail the same way ({@code AUTORESUME_MAX_SAME_FAILURES}; 0: no limit). */
    public int sameFailureLimit() {
        return settings.maxSameFailures();
    }

    /**
     * Ends the step after the same failure came back attempt after attempt: re-running it, or
     * requeueing the job, would only repeat it. The step ends with the last attempt's status.
     */
    public AfterAttempt stopRepeating(EndOfAttempt.RepeatedFailure repeated, AttemptEnd end) {
        SameFailures run = repeated.run();
        String signature = run.signature().orElseThrow().describe();
        String why = "attempts " + run.attemptList() + " failed the same way (" + signature + ")";
        timeline.record(
                EventHistory.Kind.REPEATED_FAILURE,
                OptionalLong.empty(),
                "fault",
                repeated.kind().name(),
                "signature",
                signature,
                "attempts",
                run.attemptList(),
                "limit",
                Integer.toString(settings.maxSameFailures()));
        timeline.record(
                EventHistory.Kind.GIVE_UP,
                OptionalLong.empty(),
                "status",
                Integer.toString(end.status()),
                "reason",
                why);
        log.say(repeated.what() + "; not re-running (exit " + end.status() + "): " + why
                + ", so another attempt would fail again (" + SupervisorSettings.MAX_SAME_FAILURES + "="
                + settings.maxSameFailures() + "; 0 turns this off)");
        return AfterAttempt.end(end.status());
    }

    /** Returns the status to end with: requeued or not, this supervisor is done. */
    private int requeue(Decision decision, Fault fault, String what, int status, RestartGate gate) {
        String why = what + "; " + RestartGate.whyNot(decision, fault.kind());
        if (jobId.isEmpty()) {
            log.say(why + "; cannot requeue outside a job; not re-running (exit " + status + ")");
            return status;
        }
        timeline.record(EventHistory.Kind.REQUEUE, OptionalLong.empty(), "reason", why);
        log.say(why + "; requeueing the whole job ("
                + (gate.requeueFromEnvironment() ? SupervisorSettings.ON_EXHAUSTED + "=requeue" : decision.reason())
                + ")");
        // Recorded first: once Slurm has the requeue it kills this batch script, and with it us.
        // A requeue Slurm then refuses still counts, which errs on the side of fewer requeues.
        remember(gate, decision);
        WriteResult requeue = control.requeue(jobId.get());
        if (!requeue.ok()) {
            log.say("Slurm did not requeue job " + jobId.get() + " ("
                    + requeue.diagnosticTail().strip() + "); ending with exit " + status);
        }
        return status;
    }

    private void remember(RestartGate gate, Decision decision) {
        RestartHistoryFile.remember(historyFile, gate.carriedOut(decision, Instant.now()), log::say);
    }

    /** A repair's outcome: what the next attempt inherits, or why the job could not be repaired. */
    private record Repair(Optional<NextAttempt> next, String whyNot) {
        static Repair failed(String why) {
            return new Repair(Optional.empty(), why);
        }

        static Repair done(NextAttempt next) {
            return new Repair(Optional.of(next), "");
        }
    }

    /** Marks, drops and replaces the faulty nodes: what the re-run inherits, or why there is none. */
    private Repair repairAfterNodeFault(AttemptEnd end, Attempt attempt, KnownPaths known) {
        Classification result = end.result();
        NextAttempt before = attempt.inherited();
        Optional<InJobSpares> plan = before.spares();
        Optional<NodeFaultRecovery> recovery = active(before);
        if (recovery.isEmpty() || jobId.isEmpty()) {
            return Repair.failed(
                    "no replacement is configured (" + SupervisorSettings.REPLACEMENT
                            + ", or a spare pool: AUTORESUME_SPARE_PARTITION, AUTORESUME_SPARE_FEATURE or AUTORESUME_SPARE_NODES)");
        }
        if (result.faultyNodes().isEmpty()) {
            return Repair.failed("Slurm did not say which node failed");
        }
        if (plan.isEmpty() && end.jobSize() <= 0) {
            return Repair.failed("the job's size could not be read from Slurm when the step started,"
                    + " so there is nothing to grow it back to");
        }
        Optional<String> hopeless = noRepairFor(known, before, result.faultyNodes());
        if (hopeless.isPresent()) {
            return Repair.failed("cannot repair the job: " + hopeless.get());
        }
        log.say("node fault: " + result.reason());
        String job = jobId.get().toString();
        try {
            // When the fault was confirmed: taken here, never at construction (zone rules cost 40 ms before srun).
            LocalDateTime faultConfirmedAt =
                    attempt.watchMark().map(Attempt.WatchMark::confirmedAt).orElseGet(LocalDateTime::now);
            if (attempt.markedByWatch().isEmpty()) {
                pause.at(PhasePause.Phase.MARK);
                recovery.get().confirmAndMark(job, result.faultyNodes());
            }
            attempt.recoveryMarked();
            pause.at(PhasePause.Phase.REPLACEMENT);
            boolean overlap = end.stepId().isPresent()
                    && recovery.get().stepLingers(job, end.stepId().get());
            if (overlap) {
                log.say("step " + job + "." + end.stepId().get() + " is still on record with its CPUs on the surviving"
                        + " nodes (Slurm keeps it until the dead node answers); the re-run shares them (--overlap)");
            }
            // With in-job spares the step needs only its own N nodes: when the job still holds
            // them after the drop, recovery is done without asking any provider.
            NodeFaultRecovery.Result repaired = recovery.get()
                    .repair(
                            job,
                            result.faultyNodes(),
                            plan.map(InJobSpares::stepSize).orElse(end.jobSize()),
                            plan.isPresent(),
                            faultConfirmedAt,
                            settings.replacementTimeout(),
                            stopRequested);
            if (!repaired.repaired()) {
                return Repair.failed("cannot repair the job: " + repaired.why());
            }
            if (plan.isPresent()) {
                return rerunOnSpares(before, plan.get(), result.faultyNodes(), repaired.job(), end, overlap);
            }
            JobEnvironment env = new JobEnvironmentResolver(slurm).resolve(job);
            NextAttempt next = before.repaired(env.variables(), env.slurmVariables(), overlap, result.faultyNodes());
            long sinceEnd =
                    Duration.ofNanos(System.nanoTime() - end.endedNanos()).toMillis();
            timeline.record(
                    EventHistory.Kind.REPLACEMENT,
                    OptionalLong.of(sinceEnd),
                    "faultyNodes",
                    Hostlist.compress(result.faultyNodes()),
                    "nodeList",
                    env.nodeList(),
                    "masterAddr",
                    env.masterAddr());
            log.say("updating to new node list " + env.nodeList() + " (MASTER_NODE=" + env.masterNode()
                    + " MASTER_ADDR=" + env.masterAddr() + "); "
                    + Duration.ofNanos(System.nanoTime() - end.endedNanos()).toMillis() + " ms since the step ended");
            return Repair.done(next);
        } catch (RuntimeException e) {
            return Repair.failed("recovery failed: " + e.getMessage());
        }
    }

    /**
     * After a fault in a step with in-job spares: the survivors keep their places and a node the
     * job holds takes each failed node's; NODE_LIST, MASTER_NODE and MASTER_ADDR follow that
     * order. Slurm itself places tasks in node-index order whatever the order of --nodelist, so
     * rank 0 may land elsewhere than MASTER_NODE when a spare sorts before a survivor: scripts
     * that need the two to agree should take the master from NODE_LIST, as HyperPod's do.
     */
    private Repair rerunOnSpares(
            NextAttempt before, InJobSpares plan, List<String> faulty, Job job, AttemptEnd end, boolean overlap) {
        List<String> stepNodes = before.stepNodes();
        List<String> jobNodes = Hostlist.expand(job.nodeList());
        // A node an earlier attempt found faulty may still be in the job (a batch host cannot leave it): never pick it.
        Optional<List<String>> next = InJobSpares.replace(stepNodes, before.faultyWith(faulty), jobNodes);
        if (next.isEmpty()) {
            return Repair.failed("job " + job.jobId() + " holds " + job.nodeList() + ", too few for the step's "
                    + plan.stepSize() + " nodes");
        }
        List<String> nodes = next.get();
        List<String> joined = nodes.stream().filter(n -> !stepNodes.contains(n)).toList();
        // Nodes the job held from the start are in-job spares; others came from the replacement provider.
        String path = plan.jobNodes().containsAll(joined) ? "in-job-spare" : "replacement";
        String master = nodes.get(0);
        String masterAddr = slurm.node(master)
                .map(Node::address)
                .orElseThrow(
                        () -> new IllegalStateException("the step's first node " + master + " is unknown to scontrol"));
        JobEnvironment step = new JobEnvironment(job.jobId(), Hostlist.compress(nodes), nodes, master, masterAddr);
        JobEnvironment whole = new JobEnvironment(job.jobId(), job.nodeList(), jobNodes, master, masterAddr);
        NextAttempt moved = before.movedTo(nodes, step, whole, overlap, faulty);
        long sinceEnd = Duration.ofNanos(System.nanoTime() - end.endedNanos()).toMillis();
        timeline.record(
                EventHistory.Kind.REPLACEMENT,
                OptionalLong.of(sinceEnd),
                "path",
                path,
                "faultyNodes",
                Hostlist.compress(faulty),
                "spares",
                Hostlist.compress(joined),
                "stepNodes",
                step.nodeList(),
                "nodeList",
                job.nodeList(),
                "masterAddr",
                masterAddr);
        // A failed spare leaves the step's nodes as they were: nothing takes anyone's place.
        log.say((joined.isEmpty()
                        ? "the step's own nodes are healthy (" + Hostlist.compress(faulty) + " was a spare)"
                        : (path.equals("in-job-spare") ? "in-job spare " : "replacement ") + Hostlist.compress(joined)
                                + " takes the place of " + Hostlist.compress(faulty))
                + "; re-running on " + step.nodeList()
                + " (MASTER_NODE=" + master + " MASTER_ADDR=" + masterAddr + "); " + sinceEnd
                + " ms since the step ended");
        return Repair.done(moved);
    }
}
