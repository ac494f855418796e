package org.slurmautoresume.supervisor.step;

import org.slurmautoresume.slurm.client.WriteResult;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.SlurmConfig;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.JobId;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.env.JobEnvironment;
import org.slurmautoresume.slurm.env.JobEnvironmentResolver;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.supervisor.policy.Decision;
import org.slurmautoresume.supervisor.policy.Fault;
import org.slurmautoresume.supervisor.policy.FaultKind;
import org.slurmautoresume.supervisor.recovery.NodeFaultRecovery;
import org.slurmautoresume.supervisor.rules.RuleViolation;

/**
 * Carries out what was decided about a fault: re-run in place, mark and replace nodes and
 * re-run on the repaired job, requeue the whole job, or give up; and, while a step still runs,
 * ends it for nodes whose slurmd fell silent (mark, scancel, shrink) or for a log rule (dump,
 * scancel). The one place where the supervisor changes Slurm's or the agent's state, and the
 * keeper of what the next attempt inherits: the repaired job's variables and whether it must
 * share the failed step's resources.
 */
final class RestartActions {

    /**
     * How long srun may take to end by itself after its step was cancelled for a dead node,
     * counted from the scancel (the shrink runs meanwhile): long enough for the survivors' last
     * output, which their slurmstepd sends as they are killed. srun itself never ends sooner: it
     * waits up to 7 s for the dead node's tasks, which will never report.
     */
    static final Duration SRUN_GRACE = Duration.ofMillis(250);

    private final SlurmClient slurm;
    private final SlurmControl control;
    private final Optional<NodeFaultRecovery> recovery;
    /** Recovery for a step with in-job spares: the configured one, else one that only shrinks the job. */
    private final Optional<NodeFaultRecovery> spareRecovery;
    /** The in-job spares plan, set before the first attempt; null without spares. */
    private volatile InJobSpares spares;
    /** With in-job spares: the nodes the next attempt runs on, in the supervisor's order. */
    private volatile List<String> stepNodes = List.of();
    private final SupervisorSettings settings;
    private final Optional<JobId> jobId;
    private final SupervisorLog log;
    private final JobTimeline timeline;
    private final Optional<RestartHistoryFile> historyFile;
    /** True once the supervisor was told to stop: a repair waiting for nodes gives up. */
    private final BooleanSupplier stopRequested;
    /** What ends a step while it runs, for nodes its watch found gone; it knows what it marked. */
    private final WatchResponse watchResponse;
    private volatile Map<String, String> freshVariables = Map.of();
    private volatile boolean overlapNextAttempt;
    /** Whether this attempt's faulty nodes were marked FAIL already by recovery (the watch's: see watchResponse). */
    private volatile boolean faultyMarked;
    /** The end of the node-fault path when no repair is left. */
    private final NodeFaultRequeue fallback;
    /** What this job can fall back on, once the job was read; nothing ruled out before. */
    private volatile RecoveryPaths paths = RecoveryPaths.UNKNOWN;
    private volatile Optional<String> agentAway = Optional.empty(); // why no agent answered when the paths were learnt
    private volatile boolean requeueAtEnd; // a node fault with no repair ends in a requeue, which wants the job's size
    /** A test's pause at one phase of recovery (none unless the job's environment asks for it). */
    private final PhasePause pause;

    /** @param spareRecovery what repairs a step that has in-job spares (see {@link #useInJobSpares}) */
    RestartActions(SlurmClient slurm, CommandRunner runner, Optional<NodeFaultRecovery> recovery,
                   Optional<NodeFaultRecovery> spareRecovery, SupervisorSettings settings, Optional<JobId> jobId,
                   SupervisorLog log, JobTimeline timeline, Optional<RestartHistoryFile> historyFile,
                   BooleanSupplier stopRequested, PhasePause pause) {
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
        this.fallback = new NodeFaultRequeue(slurm, control, spareRecovery, settings.nodeFaultFallback(), log, timeline,
                stopRequested);
        // A job to be requeued keeps its size; any other loses the node, or cannot end while it is dead.
        this.watchResponse = new WatchResponse(this::watcher, marked -> active().isPresent()
                && (noRepairFor(marked).isEmpty() || !requeueAtEnd), () -> agentAway, control, pause, log, timeline);
    }

    /** The slurmd probes for a step watch: with recovery, in-job spares, or a requeue to follow (node marked, before SlurmdTimeout). */
    Optional<StepWatch.SlurmdFindings> slurmdFindings() {
        return watcher().isPresent() ? Optional.of(watchResponse) : Optional.empty();
    }

    /**
     * Who confirms and marks a silent node: the active recovery, else, when a requeue may follow,
     * the agent alone (without an agent on this host Slurm's own DOWN has to do).
     */
    private Optional<NodeFaultRecovery> watcher() {
        return active().isPresent() ? active() : jobId.isPresent() && fallback.enabled()
                && Files.exists(settings.agentSocket()) ? spareRecovery : Optional.empty();
    }

    /** The recovery that repairs this step: with in-job spares the spares' one. */
    private Optional<NodeFaultRecovery> active() {
        return spares == null ? recovery : spareRecovery;
    }

    /** From now on the step runs on the plan's nodes, and a node fault first takes an in-job spare. */
    void useInJobSpares(InJobSpares plan) {
        stepNodes = plan.stepNodes();
        spares = plan;
    }

    /** Learns, once the job was read, which ways back it has; records them and returns them in words. */
    String knowPaths(Job job, Optional<SlurmConfig> config, Optional<String> agentAway) {
        paths = config.map(c -> RecoveryPaths.of(c, job)).orElse(RecoveryPaths.UNKNOWN);
        NodeFaultRequeue.Verdict requeue = fallback.verdict(Optional.of(job), config);
        requeueAtEnd = requeue.requeue();
        this.agentAway = agentAway;
        timeline.record(EventHistory.Kind.PATHS, OptionalLong.empty(), RecoveryPaths.withAgent(
                paths.details(Optional.ofNullable(spares), recovery.isPresent(), requeue), agentAway));
        return paths.describe(Optional.ofNullable(spares), recovery.isPresent(), requeue)
                + RecoveryPaths.agentPart(agentAway, Files.exists(settings.agentSocket()));
    }

    /** Why nothing can repair the job after these nodes failed, known without trying; empty when something may. */
    private Optional<String> noRepairFor(List<String> failed) {
        return paths.noRepairFor(Optional.ofNullable(spares), stepNodes, failed, recovery.isPresent(),
                () -> Hostlist.expand(slurm.requireJob(jobId.orElseThrow().toString()).nodeList()));
    }

    /** With in-job spares, the nodes the next attempt must run on (srun's --nodelist); empty without. */
    Optional<List<String>> stepNodes() {
        return spares == null ? Optional.empty() : Optional.of(stepNodes);
    }

    /** Pauses here when a test asked for it at this phase (see {@link PhasePause}). */
    void pauseAt(PhasePause.Phase phase) {
        pause.at(phase);
    }

    void beginAttempt() {
        watchResponse.beginAttempt();
        faultyMarked = false;
    }

    /** The nodes the slurmd watch marked during this attempt, after which it ended the step; empty if none. */
    List<String> markedByWatch() {
        return watchResponse.marked();
    }

    /** What the watch found about the nodes it marked ("slurmd of node2 stopped answering"); empty if none. */
    String watchFinding() {
        return watchResponse.finding();
    }

    /** The node list, sizes and master for the next attempt: the first attempt's until a repair. */
    Map<String, String> freshVariables() {
        return freshVariables;
    }

    /** The first attempt's NODE_LIST, MASTER_NODE, MASTER_ADDR, NNODES: a repair replaces them, a re-run in place keeps them. */
    void firstAttemptVariables(Map<String, String> variables) {
        freshVariables = Map.copyOf(variables);
    }

    /** A repair's variables, {@code later} overriding {@code first}: published whole, never seen half-written. */
    private void repairedVariables(Map<String, String> first, Map<String, String> later) {
        Map<String, String> all = new HashMap<>(first);
        all.putAll(later);
        freshVariables = Map.copyOf(all);
    }

    /** Whether the next srun must share the failed step's CPUs (--overlap). */
    boolean overlapNextAttempt() {
        return overlapNextAttempt;
    }

    /** Ends a step a log rule fired on: a dump first when the decision asks for one, then scancel. */
    void stopForRule(Srun srun, Decision decision, RuleViolation violation) {
        SrunStopper.stopForRule(srun, decision, violation, log, timeline, jobId, control);
    }

    /**
     * Does what the restart policy decided. {@code what} names the fault for the log; empty when
     * the step is to run again, else the status to end with.
     */
    OptionalInt carryOut(Decision decision, Fault fault, String what, AttemptEnd end, RestartGate gate) {
        timeline.record(EventHistory.Kind.DECISION, OptionalLong.empty(), "fault", fault.kind().name(), "strategy",
                decision.strategy().configName(), "level", decision.level().name(), "reason", decision.describe(),
                "stepRestartsLeft", Integer.toString(decision.budget().stepRestartsLeft()));
        switch (decision.level()) {
            case RERUN_IN_PLACE:
                log.say(what + "; re-running in place: " + decision.describe());
                remember(gate, decision);
                return OptionalInt.empty();
            case REPLACE_NODES_AND_RERUN: {
                Optional<String> notRepaired = repairAfterNodeFault(end);
                if (notRepaired.isEmpty()) {
                    log.say(decision.describe());
                    remember(gate, decision);
                    return OptionalInt.empty();
                }
                return carryOut(gate.decideWithoutStepRestart(fault, notRepaired.get()), fault, what, end, gate);
            }
            case REQUEUE_JOB:
                return requeue(decision, fault, what, end.status(), gate);
            default:
                if (fault.kind() == FaultKind.NODE_FAULT && jobId.isPresent() && fallback.tryRequeue(jobId.get(),
                        end.result().faultyNodes(), faultyMarked || !watchResponse.marked().isEmpty(),
                        what + "; " + RestartGate.whyNot(decision, fault.kind()))) {
                    return OptionalInt.of(end.status());
                }
                timeline.record(EventHistory.Kind.GIVE_UP, OptionalLong.empty(), "status", Integer.toString(end.status()),
                        "reason", RestartGate.whyNot(decision, fault.kind()));
                log.say(what + "; " + RestartGate.whyNot(decision, fault.kind()) + "; not re-running (exit "
                        + end.status() + "): " + decision.describe());
                return OptionalInt.of(end.status());
        }
    }

    private OptionalInt requeue(Decision decision, Fault fault, String what, int status, RestartGate gate) {
        String why = what + "; " + RestartGate.whyNot(decision, fault.kind());
        if (jobId.isEmpty()) {
            log.say(why + "; cannot requeue outside a job; not re-running (exit " + status + ")");
            return OptionalInt.of(status);
        }
        timeline.record(EventHistory.Kind.REQUEUE, OptionalLong.empty(), "reason", why);
        log.say(why + "; requeueing the whole job (" + (gate.requeueFromEnvironment()
                ? SupervisorSettings.ON_EXHAUSTED + "=requeue" : decision.reason()) + ")");
        // Recorded first: once Slurm has the requeue it kills this batch script, and with it us.
        // A requeue Slurm then refuses still counts, which errs on the side of fewer requeues.
        remember(gate, decision);
        WriteResult requeue = control.requeue(jobId.get());
        if (!requeue.ok()) {
            log.say("Slurm did not requeue job " + jobId.get() + " (" + requeue.diagnosticTail().strip()
                    + "); ending with exit " + status);
        }
        return OptionalInt.of(status);
    }

    private void remember(RestartGate gate, Decision decision) {
        RestartHistoryFile.remember(historyFile, gate.carriedOut(decision, Instant.now()), log::say);
    }

    /** Marks, drops and replaces the faulty nodes; empty when the step may run again, else why not. */
    private Optional<String> repairAfterNodeFault(AttemptEnd end) {
        Classification result = end.result();
        InJobSpares plan = spares;
        Optional<NodeFaultRecovery> recovery = active();
        if (recovery.isEmpty() || jobId.isEmpty()) {
            return Optional.of("no replacement is configured (" + SupervisorSettings.REPLACEMENT
                    + ", or a spare pool: AUTORESUME_SPARE_PARTITION, AUTORESUME_SPARE_FEATURE or AUTORESUME_SPARE_NODES)");
        }
        if (result.faultyNodes().isEmpty()) {
            return Optional.of("Slurm did not say which node failed");
        }
        if (plan == null && end.jobSize() <= 0) {
            return Optional.of("the job's size could not be read from Slurm when the step started,"
                    + " so there is nothing to grow it back to");
        }
        Optional<String> hopeless = noRepairFor(result.faultyNodes());
        if (hopeless.isPresent()) {
            return Optional.of("cannot repair the job: " + hopeless.get());
        }
        log.say("node fault: " + result.reason());
        String job = jobId.get().toString();
        try {
            // When the fault was confirmed: taken here, never at construction (zone rules cost 40 ms before srun).
            LocalDateTime faultConfirmedAt = watchResponse.confirmedAt().orElseGet(LocalDateTime::now);
            if (watchResponse.marked().isEmpty()) {
                pause.at(PhasePause.Phase.MARK);
                recovery.get().confirmAndMark(job, result.faultyNodes());
            }
            faultyMarked = true;
            pause.at(PhasePause.Phase.REPLACEMENT);
            overlapNextAttempt = end.stepId().isPresent() && recovery.get().stepLingers(job, end.stepId().get());
            if (overlapNextAttempt) {
                log.say("step " + job + "." + end.stepId().get() + " is still on record with its CPUs on the surviving"
                        + " nodes (Slurm keeps it until the dead node answers); the re-run shares them (--overlap)");
            }
            // With in-job spares the step needs only its own N nodes: when the job still holds
            // them after the drop, recovery is done without asking any provider.
            NodeFaultRecovery.Result repaired = recovery.get().repair(job, result.faultyNodes(),
                    plan == null ? end.jobSize() : plan.stepSize(), plan != null, faultConfirmedAt,
                    settings.replacementTimeout(), stopRequested);
            if (!repaired.repaired()) {
                return Optional.of("cannot repair the job: " + repaired.why());
            }
            if (plan != null) {
                return rerunOnSpares(plan, result.faultyNodes(), repaired.job(), end);
            }
            JobEnvironment env = new JobEnvironmentResolver(slurm).resolve(job);
            repairedVariables(env.variables(), env.slurmVariables());
            long sinceEnd = Duration.ofNanos(System.nanoTime() - end.endedNanos()).toMillis();
            timeline.record(EventHistory.Kind.REPLACEMENT, OptionalLong.of(sinceEnd), "faultyNodes",
                    Hostlist.compress(result.faultyNodes()), "nodeList", env.nodeList(), "masterAddr", env.masterAddr());
            log.say("updating to new node list " + env.nodeList() + " (MASTER_NODE=" + env.masterNode()
                    + " MASTER_ADDR=" + env.masterAddr() + "); " + Duration.ofNanos(System.nanoTime() - end.endedNanos())
                    .toMillis() + " ms since the step ended");
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.of("recovery failed: " + e.getMessage());
        }
    }

    /**
     * After a fault in a step with in-job spares: the survivors keep their places and a node the
     * job holds takes each failed node's; NODE_LIST, MASTER_NODE and MASTER_ADDR follow that
     * order. Slurm itself places tasks in node-index order whatever the order of --nodelist, so
     * rank 0 may land elsewhere than MASTER_NODE when a spare sorts before a survivor: scripts
     * that need the two to agree should take the master from NODE_LIST, as HyperPod's do.
     */
    private Optional<String> rerunOnSpares(InJobSpares plan, List<String> faulty, Job job,
                                           AttemptEnd end) {
        List<String> jobNodes = Hostlist.expand(job.nodeList());
        Optional<List<String>> next = InJobSpares.replace(stepNodes, faulty, jobNodes);
        if (next.isEmpty()) {
            return Optional.of("job " + job.jobId() + " holds " + job.nodeList() + ", too few for the step's "
                    + plan.stepSize() + " nodes");
        }
        List<String> nodes = next.get();
        List<String> joined = nodes.stream().filter(n -> !stepNodes.contains(n)).toList();
        // Nodes the job held from the start are in-job spares; others came from the replacement provider.
        String path = plan.jobNodes().containsAll(joined) ? "in-job-spare" : "replacement";
        String master = nodes.get(0);
        String masterAddr = slurm.node(master).map(Node::address).orElseThrow(() ->
                new IllegalStateException("the step's first node " + master + " is unknown to scontrol"));
        JobEnvironment step = new JobEnvironment(job.jobId(), Hostlist.compress(nodes), nodes, master, masterAddr);
        JobEnvironment whole = new JobEnvironment(job.jobId(), job.nodeList(), jobNodes, master, masterAddr);
        // Slurm's size variables stay the job's: srun checks them against the allocation.
        repairedVariables(step.variables(), whole.slurmVariables());
        stepNodes = nodes;
        long sinceEnd = Duration.ofNanos(System.nanoTime() - end.endedNanos()).toMillis();
        timeline.record(EventHistory.Kind.REPLACEMENT, OptionalLong.of(sinceEnd), "path", path, "faultyNodes",
                Hostlist.compress(faulty), "spares", Hostlist.compress(joined), "stepNodes", step.nodeList(),
                "nodeList", job.nodeList(), "masterAddr", masterAddr);
        // A failed spare leaves the step's nodes as they were: nothing takes anyone's place.
        log.say((joined.isEmpty() ? "the step's own nodes are healthy (" + Hostlist.compress(faulty) + " was a spare)"
                : (path.equals("in-job-spare") ? "in-job spare " : "replacement ") + Hostlist.compress(joined)
                + " takes the place of " + Hostlist.compress(faulty)) + "; re-running on " + step.nodeList()
                + " (MASTER_NODE=" + master + " MASTER_ADDR=" + masterAddr + "); " + sinceEnd + " ms since the step ended");
        return Optional.empty();
    }
}
