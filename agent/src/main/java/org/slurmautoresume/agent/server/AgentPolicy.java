package org.slurmautoresume.agent.server;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slurmautoresume.agent.protocol.AgentRequest;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.agent.protocol.NodeDecision;
import org.slurmautoresume.nodeops.admin.NodePhase;
import org.slurmautoresume.nodeops.health.NodeHealth;
import org.slurmautoresume.nodeops.lemon.LemonRule;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.client.RebootRules;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.client.WriteResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Caller;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;
import org.slurmautoresume.slurm.probe.NodeProber;

/**
 * What the agent may do for a caller, decided and done: authorise against Slurm's state at the
 * moment of acting ({@link JobAuthority}: the caller owns the active job, or is root; each node
 * is the job's, re-checked per node), diagnose each node
 * itself (Slurm's state, then a connect to its slurmd), and act only where its own diagnosis
 * allows. Holds no socket: the server hands it a {@link Caller} from the peer credentials and
 * an already validated {@link AgentRequest}.
 *
 * <p>A {@code report} changes nothing: it counts a supervisor's event in the agent's
 * {@link AgentMetrics}, after the same check that the caller owns the running job.
 *
 * <p>The only commands it runs are {@code scontrol show job|node} ({@link SlurmClient}),
 * {@code scontrol update nodename=N state=fail|down|resume [reason=Action:Replace|Reboot]} and
 * {@code scontrol reboot} ({@link SlurmControl}), and, for a requeued job whose supervisor asked
 * ({@code expedite}, {@link RequeueExpediter}), {@code scontrol update jobid=J StartTime=now}, as
 * argv lists whose every word is a validated name or a constant.
 */
public final class AgentPolicy {

    private static final int WATCHED_JOBS = 4096;
    /** Where the agent keeps the record of its own marks (see {@code --state-dir}). */
    public static final Path DEFAULT_STATE_DIR = MarkLedger.DEFAULT_DIR;

    private final SlurmClient slurm;
    private final SlurmControl control;
    private final RequeueExpediter expediter;
    private final NodeProber prober;
    private final String agentUser;
    private final WatchedJobs watched = new WatchedJobs(WATCHED_JOBS);
    private final JobAuthority authority;
    private final OwnMarks ownMarks;
    private final Optional<SiteReplaceCommand> replaceCommand;
    private final AgentMetrics metrics;
    private final Optional<NodeHealth> healthCheck;

    /**
     * {@code agentUser}: the user the agent runs as; Slurm appends it to reasons the agent sets
     * ({@code Action:Replace [root@...]}). {@code resume} goes first by the agent's own record of
     * its marks ({@link OwnMarks}), then checks the reason still carries that user.
     */
    public AgentPolicy(SlurmClient slurm, CommandRunner runner, String scontrol, NodeProber prober, String agentUser) {
        this(slurm, runner, scontrol, prober, agentUser, Optional.empty());
    }

    /** With the site's command that replaces a node (a cloud API call, say), run for {@code replace}. */
    public AgentPolicy(
            SlurmClient slurm,
            CommandRunner runner,
            String scontrol,
            NodeProber prober,
            String agentUser,
            Optional<SiteReplaceCommand> replaceCommand) {
        this(slurm, runner, scontrol, prober, agentUser, replaceCommand, new AgentMetrics());
    }

    /** With the metrics it counts into (the agent serves them over HTTP). */
    public AgentPolicy(
            SlurmClient slurm,
            CommandRunner runner,
            String scontrol,
            NodeProber prober,
            String agentUser,
            Optional<SiteReplaceCommand> replaceCommand,
            AgentMetrics metrics) {
        this(slurm, runner, scontrol, prober, agentUser, replaceCommand, metrics, Optional.empty());
    }

    /**
     * With the site's health check too ({@code --health-command}): a node Slurm calls healthy and
     * whose slurmd answers is also checked by it before the agent calls the node healthy, so a
     * node with, say, a GPU that fell off the bus can be marked at a job's request.
     */
    public AgentPolicy(
            SlurmClient slurm,
            CommandRunner runner,
            String scontrol,
            NodeProber prober,
            String agentUser,
            Optional<SiteReplaceCommand> replaceCommand,
            AgentMetrics metrics,
            Optional<NodeHealth> healthCheck) {
        this(slurm, runner, scontrol, prober, agentUser, replaceCommand, metrics, healthCheck, MarkLedger.inMemory());
    }

    /**
     * With the record of its own marks ({@link MarkLedger}: the agent's state file, surviving
     * restarts), which is what {@code resume} and {@code replace} go by. The other constructors
     * keep it in memory only.
     */
    public AgentPolicy(
            SlurmClient slurm,
            CommandRunner runner,
            String scontrol,
            NodeProber prober,
            String agentUser,
            Optional<SiteReplaceCommand> replaceCommand,
            AgentMetrics metrics,
            Optional<NodeHealth> healthCheck,
            Path markLedgerDir)
            throws IOException {
        this(
                slurm,
                runner,
                scontrol,
                prober,
                agentUser,
                replaceCommand,
                metrics,
                healthCheck,
                MarkLedger.open(markLedgerDir));
    }

    private AgentPolicy(
            SlurmClient slurm,
            CommandRunner runner,
            String scontrol,
            NodeProber prober,
            String agentUser,
            Optional<SiteReplaceCommand> replaceCommand,
            AgentMetrics metrics,
            Optional<NodeHealth> healthCheck,
            MarkLedger ledger) {
        this.healthCheck = Objects.requireNonNull(healthCheck);
        this.metrics = Objects.requireNonNull(metrics);
        this.replaceCommand = Objects.requireNonNull(replaceCommand);
        this.slurm = Objects.requireNonNull(slurm);
        this.control = new SlurmControl(runner, SlurmControl.Programs.withScontrol(scontrol));
        this.prober = Objects.requireNonNull(prober);
        this.agentUser = Objects.requireNonNull(agentUser);
        MarkProvenance provenance = new MarkProvenance(ledger, agentUser);
        this.authority = new JobAuthority(slurm, watched, provenance);
        this.ownMarks = new OwnMarks(slurm, control, prober, ledger, provenance);
        this.expediter = new RequeueExpediter(slurm, control, System::nanoTime, true);
    }

    /**
     * The site's lemon rule (the sweep policy's {@code lemonMarks} in {@code lemonWindowSeconds};
     * {@link LemonRule#DEFAULT} until set): a node the toolkit marked faulty that often is held
     * for an administrator instead of being returned at a job's request ({@code resume},
     * {@code reboot}). Set before the agent serves.
     */
    public void useLemonRule(LemonRule rule, Supplier<LocalDateTime> clock) {
        ownMarks.useLemonRule(rule, clock);
    }

    /** Where the moved starts of requeued jobs are recorded (the agent's audit log). */
    void recordRequeuesInto(AuditLog audit) {
        expediter.recordInto(audit);
    }

    public AgentPolicy(CommandRunner runner, NodeProber prober, String agentUser) {
        this(new SlurmClient(runner), runner, "scontrol", prober, agentUser);
    }

    public AgentResponse handle(Caller caller, AgentRequest request) {
        AgentResponse response = decide(caller, request);
        metrics.answered(request.op(), response.ok());
        return response;
    }

    public AgentMetrics metrics() {
        return metrics;
    }

    private AgentResponse decide(Caller caller, AgentRequest request) {
        JobAuthority.Verdict verdict = authority.job(caller, request.job());
        if (!verdict.allowed()) {
            return AgentResponse.refused(request.nodes(), verdict.refusal());
        }
        Job job = verdict.job();
        if (request.op() == AgentRequest.Op.REPORT) {
            metrics.record(request.report());
            return AgentResponse.of(
                    List.of(),
                    "job " + job.jobId() + ": " + request.report().event().word() + " counted");
        }
        if (request.op() == AgentRequest.Op.EXPEDITE) {
            Optional<String> refused = expediter.follow(job);
            return refused.isPresent()
                    ? AgentResponse.refused(List.of(), refused.get())
                    : AgentResponse.of(List.of(), "job " + job.jobId() + ": once requeued, it may start again at once");
        }
        List<String> current = JobAuthority.nodesOf(job);
        if (request.op() == AgentRequest.Op.WATCH) {
            String key = WatchedJobs.key(job.jobId(), JobAuthority.owner(job));
            authority.forgetShrunkAway(job, current, key);
            List<String> recorded = watched.record(key, current);
            List<NodeDecision> decisions = recorded.stream()
                    .map(n -> new NodeDecision(
                            n,
                            NodeDecision.WATCHED,
                            null,
                            current.contains(n) ? "in the job now" : "recorded at an earlier watch"))
                    .toList();
            return AgentResponse.of(decisions, "job " + job.jobId() + ": watching " + Hostlist.compress(recorded));
        }
        List<String> outside = authority.outside(job, request.nodes());
        if (!outside.isEmpty()) {
            return AgentResponse.refused(request.nodes(), notTheJobs(job, outside));
        }
        List<NodeDecision> decisions = new ArrayList<>();
        for (int i = 0; i < request.nodes().size(); i++) {
            String node = request.nodes().get(i);
            if (i > 0 && request.op() != AgentRequest.Op.DIAGNOSE) {
                // A long request: the job may have ended, changed hands or shrunk since the first node.
                JobAuthority.Verdict again = authority.job(caller, request.job());
                if (!again.allowed()
                        || !authority.outside(again.job(), List.of(node)).isEmpty()) {
                    decisions.add(new NodeDecision(
                            node,
                            NodeDecision.REFUSED,
                            null,
                            again.allowed() ? notTheJobs(again.job(), List.of(node)) : again.refusal()));
                    continue;
                }
                job = again.job();
            }
            Job now = job;
            decisions.add(
                    switch (request.op()) {
                        case DIAGNOSE -> diagnose(node).asDecision();
                        case MARK -> mark(caller, now, node, request.action(), request.state());
                        case RESUME -> ownMarks.resume(now, node);
                        case REBOOT -> reboot(now, node);
                        case REPLACE -> replace(now, node);
                        case WATCH, REPORT, EXPEDITE -> throw new IllegalStateException("handled above");
                    });
        }
        return AgentResponse.of(decisions, summary(request, decisions));
    }

    private static String notTheJobs(Job job, List<String> outside) {
        return "not nodes of job " + job.jobId() + ": " + String.join(",", outside) + " (the job has "
                + (job.nodeList().isBlank() ? "no nodes" : job.nodeList()) + "; the agent marked none of them for it,"
                + " and none was seen to leave it by failing)";
    }

    /** The agent's own verdict on a node. */
    /** {@code answers}: what the probe of the node found, when the diagnosis probed it (empty: it did not). */
    private record Diagnosis(
            String node, boolean healthy, String evidence, Optional<Node> record, Optional<Boolean> answers) {
        Diagnosis(String node, boolean healthy, String evidence, Optional<Node> record) {
            this(node, healthy, evidence, record, Optional.empty());
        }

        NodeDecision asDecision() {
            return new NodeDecision(node, healthy ? NodeDecision.HEALTHY : NodeDecision.UNHEALTHY, evidence, null);
        }
    }

    private Diagnosis diagnose(String name) {
        Optional<Node> found;
        try {
            found = slurm.node(name);
        } catch (SlurmException e) {
            return new Diagnosis(
                    name, false, "could not read the node from Slurm: " + e.getMessage(), Optional.empty());
        }
        if (found.isEmpty()) {
            return new Diagnosis(name, false, "Slurm does not know the node", Optional.empty());
        }
        Node node = found.get();
        String slurmSays = "Slurm state " + node.state().display()
                + node.reason().map(r -> ", reason \"" + r.text() + "\"").orElse("");
        if (node.state().isUnhealthy()) {
            return new Diagnosis(name, false, slurmSays, found);
        }
        if (node.drainedByNhc()) {
            // The site's own health check (LBNL NHC as HealthCheckProgram) found the node bad: its verdict.
            return new Diagnosis(name, false, "drained by the site's health check (NHC); " + slurmSays, found);
        }
        Optional<String> silent = prober.unreachable(node);
        if (silent.isPresent()) {
            return new Diagnosis(name, false, silent.get() + "; " + slurmSays, found, Optional.of(false));
        }
        if (healthCheck.isPresent()) {
            NodeHealth.Verdict verdict = healthCheck.get().check(node);
            if (verdict.onlyShortOfSpace()) {
                // Any user may fill a filesystem: no node fault for a job to have marked. The node's own
                // health check drains it with its own reason, and lifts that drain once space is back.
                return new Diagnosis(
                        name,
                        true,
                        slurmSays + "; slurmd accepts connections; a filesystem is short of"
                                + " space, which is no fault of the node (its own health check drains it)",
                        found,
                        Optional.of(true));
            }
            if (!verdict.healthy()) {
                return new Diagnosis(
                        name,
                        false,
                        "health check failed (" + verdict.action() + "): " + verdict.detail() + "; " + slurmSays,
                        found,
                        Optional.of(true));
            }
            return new Diagnosis(
                    name,
                    true,
                    slurmSays + "; slurmd accepts connections; health check passed",
                    found,
                    Optional.of(true));
        }
        return new Diagnosis(name, true, slurmSays + "; slurmd accepts connections", found, Optional.of(true));
    }

    /**
     * Marks a node the agent's own diagnosis finds unhealthy, where its state is nobody's decision
     * yet (in service, no reason) or the agent's own standing mark for this job. A node someone
     * else took out of service (an administrator, NHC, Slurm itself) keeps its state and reason:
     * the answer says who took it out ({@link NodeDecision#ALREADY_OUT}) and nothing is recorded,
     * so the job gains no claim on it. The one change over another's mark is the toolkit's own
     * vocabulary on a dead node asked to go down (below).
     */
    private NodeDecision mark(
            Caller caller, Job job, String name, NodeMark.Action action, AgentRequest.MarkState asked) {
        return actOnUnhealthy(name, "marks", diagnosis -> {
            // DOWN is for a dead node, which Slurm would otherwise hold a requeued job on until
            // SlurmdTimeout. A node that still answers lets go of its jobs by itself: DOWN would only
            // kill its processes (the batch script, on a batch host with a GPU fault), so root gets FAIL
            // and an ordinary user is refused (JobAuthority#downRefusal), as over anyone else's job.
            // The diagnosis's own probe where it made one: a node cut off takes the probe's whole timeout
            // (seconds) to say so, which is not paid twice.
            Node node = diagnosis.record().get();
            boolean answers =
                    diagnosis.answers().orElseGet(() -> prober.unreachable(node).isEmpty());
            if (asked == AgentRequest.MarkState.DOWN) {
                Optional<String> refusal = authority.downRefusal(caller, job, name, answers);
                if (refusal.isPresent()) {
                    return new NodeDecision(name, NodeDecision.REFUSED, diagnosis.evidence(), refusal.get());
                }
            }
            AgentRequest.MarkState state =
                    asked == AgentRequest.MarkState.DOWN && answers ? AgentRequest.MarkState.FAIL : asked;
            boolean toDown =
                    state.mark() == NodeMark.State.DOWN && !node.state().isDown();
            Optional<MarkLedger.Mark> own = ownMarks.standing(job, node);
            if (own.isPresent()) {
                String reason = node.reason().orElseThrow().text();
                if (toDown) {
                    // The job's own mark, taken further: the ledger takes the new stamp with it.
                    return counted(
                            action,
                            ownMarks.mark(
                                    job,
                                    new NodeMark(name, NodeMark.State.DOWN, reason),
                                    NodeMark.Action.named(own.get().action()).orElse(action),
                                    diagnosis.evidence(),
                                    "set down, the agent's own mark \"" + reason + "\" kept"));
                }
                return new NodeDecision(
                        name,
                        NodeDecision.MARKED,
                        diagnosis.evidence(),
                        "marked already by the agent for job " + job.jobId() + " (\"" + reason + "\")");
            }
            if (node.state().isTakenOut() || node.reason().isPresent()) {
                return outOfServiceAlready(node, diagnosis.evidence(), toDown);
            }
            NodeMark mark = NodeMark.of(name, state.mark(), action);
            return counted(
                    action,
                    ownMarks.mark(
                            job,
                            mark,
                            action,
                            diagnosis.evidence(),
                            "set " + state.word() + " with reason " + mark.reason()));
        });
    }

    /**
     * A node someone else took out of service: left as it is. The toolkit's own words on a dead
     * node (another node's agent, the Xid watch, a health check: {@code Action:Replace} or
     * {@code Action:Reboot}) may go from FAIL to DOWN with the reason kept word for word, as
     * slurmctld itself would at SlurmdTimeout; the job records no claim on the node either way.
     */
    private NodeDecision outOfServiceAlready(Node node, String evidence, boolean toDown) {
        String name = node.name();
        Optional<NodeReason> reason = node.reason();
        boolean toolkits = (node.state().isFail() || node.state().isDown()) && NodePhase.hasActionReason(node);
        if (toolkits && toDown) {
            WriteResult write = control.mark(
                    new NodeMark(name, NodeMark.State.DOWN, reason.get().text()));
            if (!write.ok()) {
                return new NodeDecision(name, NodeDecision.FAILED, evidence, write.message());
            }
            return new NodeDecision(
                    name,
                    NodeDecision.MARKED,
                    evidence,
                    "set down, reason \"" + reason.get().text() + "\" kept; not this job's mark (`" + write.command()
                            + "`)");
        }
        if (toolkits) {
            return new NodeDecision(
                    name,
                    NodeDecision.MARKED,
                    evidence,
                    "already out of service with reason \"" + reason.get().text() + "\": kept");
        }
        return new NodeDecision(
                name,
                NodeDecision.ALREADY_OUT,
                evidence,
                "already out of service: " + whoTookOut(node)
                        + "; the agent leaves the node as it is and records nothing for the job");
    }

    /** Who took a node out, as Slurm records it: the reason, its author and time, the state. */
    private static String whoTookOut(Node node) {
        Optional<NodeReason> reason = node.reason();
        if (reason.isEmpty()) {
            return "Slurm shows " + node.state().display() + " with no reason (its configuration, or slurmctld)";
        }
        NodeReason r = reason.get();
        String by = r.isNhc()
                ? "the site's health check (NHC)"
                : r.user().map(u -> u.equals("slurm") ? "slurmctld" : u).orElse("someone Slurm does not name");
        return by + " set " + node.state().display() + " with reason \"" + r.text() + "\""
                + r.time().map(t -> " at " + t).orElse("");
    }

    private NodeDecision counted(NodeMark.Action action, NodeDecision decision) {
        if (!decision.refusedOrFailed() && !decision.heldAsLemon()) {
            metrics.nodeMarked(action);
        }
        return decision;
    }

    /**
     * The rule every node-changing op shares: the agent acts only where its own diagnosis finds
     * the node unhealthy; otherwise the refusal says what it saw.
     */
    private NodeDecision actOnUnhealthy(String name, String verb, Function<Diagnosis, NodeDecision> act) {
        Diagnosis diagnosis = diagnose(name);
        if (diagnosis.record().isEmpty()) {
            return new NodeDecision(name, NodeDecision.REFUSED, diagnosis.evidence(), "the node cannot be examined");
        }
        if (diagnosis.healthy()) {
            return new NodeDecision(
                    name,
                    NodeDecision.REFUSED,
                    diagnosis.evidence(),
                    "the agent's own diagnosis finds the node healthy; it " + verb + " only unhealthy nodes");
        }
        return act.apply(diagnosis);
    }

    /**
     * Asks Slurm to reboot a node when it is free and return it to service afterwards
     * ({@code scontrol reboot ASAP nextstate=RESUME reason=Action:Reboot}): only a node that
     * carries the agent's own standing mark for this job (so {@code nextstate=RESUME} never lifts
     * anyone else's drain), and that the agent's own diagnosis finds unhealthy. ASAP is the
     * deferral other jobs need: Slurm drains the node and reboots it only once every job on it has
     * ended. Slurm answers success also for a node it skips ({@link RebootRules}): a node in such
     * a state is not asked for, and the node is read back after the request, so the answer never
     * claims a reboot Slurm did not take. A lemon ({@link OwnMarks#lemonCheck}) is not rebooted
     * but held for an administrator, so Slurm never returns it to service.
     */
    private NodeDecision reboot(Job job, String name) {
        return counted(NodeMark.Action.REBOOT, actOnUnhealthy(name, "reboots", diagnosis -> {
            Node before = diagnosis.record().get();
            if (RebootRules.pending(before.state())) {
                // Asked before (by this job's earlier recovery, the sweep, an administrator): what the
                // caller wants is under way, and asking again would be skipped. Its nextstate stands.
                return new NodeDecision(
                        name,
                        NodeDecision.REBOOTING,
                        diagnosis.evidence(),
                        "already rebooting, not" + " asked again: Slurm shows "
                                + before.state().display() + afterReboot(before));
            }
            Optional<String> notOurs = ownMarks.whyNotStanding(job, before, null);
            if (notOurs.isPresent()) {
                return new NodeDecision(name, NodeDecision.REFUSED, diagnosis.evidence(), notOurs.get());
            }
            Optional<String> skipped = RebootRules.whySkipped(before.state());
            if (skipped.isPresent()) {
                return new NodeDecision(
                        name, NodeDecision.REFUSED, diagnosis.evidence(), "not asked: " + skipped.get());
            }
            // nextstate=RESUME returns the node once it is up (one marked DOWN at once, one marked FAIL
            // by the job's resume): a lemon is held instead, never rebooted back into service.
            OwnMarks.LemonCheck lemon = ownMarks.lemonCheck(name);
            if (lemon.verdict().isPresent()) {
                return ownMarks.hold(before, lemon.verdict().get(), diagnosis.evidence(), "rebooted");
            }
            String reason = NodeMark.Action.REBOOT.reason();
            WriteResult write = control.rebootWhenIdle(List.of(name), reason);
            if (!write.ok()) {
                return new NodeDecision(name, NodeDecision.FAILED, diagnosis.evidence(), write.message());
            }
            Optional<Node> after;
            try {
                after = slurm.node(name);
            } catch (SlurmException e) {
                return new NodeDecision(
                        name,
                        NodeDecision.FAILED,
                        diagnosis.evidence(),
                        "the reboot was asked for (`"
                                + write.command()
                                + "`), but the node could not be read back to see whether Slurm took it: "
                                + e.getMessage());
            }
            RebootRules.Answer answer = RebootRules.readBack(name, reason, Optional.of(before), after);
            if (!answer.taken()) {
                return new NodeDecision(
                        name,
                        NodeDecision.FAILED,
                        diagnosis.evidence(),
                        "Slurm did not take the reboot (`" + write.command() + "`): " + answer.detail());
            }
            // The request wrote Action:Reboot anew: still the agent's mark for this job.
            ownMarks.restamp(name, NodeMark.Action.REBOOT, after);
            String deferred = authority
                    .othersOn(job, name)
                    .map(why -> "; deferred: Slurm reboots it once no job" + " runs there (it " + why + " now)")
                    .orElse("");
            return new NodeDecision(
                    name,
                    NodeDecision.REBOOTING,
                    diagnosis.evidence(),
                    "reboot requested" + afterReboot(before) + deferred + "; " + answer.detail() + " (`"
                            + write.command() + "`)" + lemon.unapplied());
        }));
    }

    /**
     * The site's replace command (a reimage, an instance swap) for a node the agent marked
     * {@code Action:Replace} for this job, only where no other job runs on the node: such a
     * command ends every job there, and one user's request never ends another's job.
     */
    private NodeDecision replace(Job job, String name) {
        if (replaceCommand.isEmpty()) {
            return new NodeDecision(
                    name,
                    NodeDecision.REFUSED,
                    null,
                    "this agent has no replace command (start it with --replace-command)");
        }
        OwnMarks.NodeLookup lookup = ownMarks.lookUp(name);
        if (lookup.refusal() != null) {
            return lookup.refusal();
        }
        Optional<String> notOurs = ownMarks.whyNotStanding(job, lookup.node().get(), NodeMark.Action.REPLACE);
        if (notOurs.isPresent()) {
            return new NodeDecision(name, NodeDecision.REFUSED, lookup.slurmSays(), notOurs.get());
        }
        Optional<String> others = authority.othersOn(job, name);
        if (others.isPresent()) {
            return new NodeDecision(
                    name,
                    NodeDecision.REFUSED,
                    lookup.slurmSays(),
                    "not replaced now: replacing " + others.get()
                            + "; ask again once they have ended, or an administrator replaces it");
        }
        return new NodeDecision(
                name,
                NodeDecision.REPLACING,
                lookup.slurmSays(),
                replaceCommand.get().start(name));
    }

    /**
     * What the node is once rebooted: a completed reboot clears DRAIN and REBOOT_ISSUED, not FAIL
     * (node_mgr.c, validate_node_specs), so a node marked fail comes back IDLE+FAIL until resumed.
     */
    private static String afterReboot(Node before) {
        return before.state().isFail()
                ? "; it comes back still FAIL, for its job's supervisor (or an" + " administrator) to resume"
                : ", back in service when it is up";
    }

    private static String summary(AgentRequest request, List<NodeDecision> decisions) {
        StringBuilder out = new StringBuilder("job ").append(request.jobId()).append(": ");
        for (int i = 0; i < decisions.size(); i++) {
            NodeDecision d = decisions.get(i);
            if (i > 0) {
                out.append("; ");
            }
            out.append(d.node()).append(' ').append(d.decision());
        }
        return out.toString();
    }
}
