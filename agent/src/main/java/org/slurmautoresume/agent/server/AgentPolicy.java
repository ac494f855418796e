package org.slurmautoresume.agent.server;

import org.slurmautoresume.agent.protocol.AgentRequest;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.agent.protocol.NodeDecision;
import org.slurmautoresume.slurm.model.Caller;
import java.io.IOException;
import java.nio.file.Path;
import org.slurmautoresume.slurm.probe.NodeProber;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.client.RebootRules;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.client.WriteResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.nodeops.health.NodeHealth;

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
 * {@code scontrol reboot} ({@link SlurmControl}), as argv lists whose every word is a validated
 * name or a constant.
 */
public final class AgentPolicy {

    private static final int WATCHED_JOBS = 4096;
    /** Where the agent keeps the record of its own marks (see {@code --state-dir}). */
    public static final Path DEFAULT_STATE_DIR = MarkLedger.DEFAULT_DIR;

    private final SlurmClient slurm;
    private final SlurmControl control;
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
    public AgentPolicy(SlurmClient slurm, CommandRunner runner, String scontrol, NodeProber prober, String agentUser,
                       Optional<SiteReplaceCommand> replaceCommand) {
        this(slurm, runner, scontrol, prober, agentUser, replaceCommand, new AgentMetrics());
    }

    /** With the metrics it counts into (the agent serves them over HTTP). */
    public AgentPolicy(SlurmClient slurm, CommandRunner runner, String scontrol, NodeProber prober, String agentUser,
                       Optional<SiteReplaceCommand> replaceCommand, AgentMetrics metrics) {
        this(slurm, runner, scontrol, prober, agentUser, replaceCommand, metrics, Optional.empty());
    }

    /**
     * With the site's health check too ({@code --health-command}): a node Slurm calls healthy and
     * whose slurmd answers is also checked by it before the agent calls the node healthy, so a
     * node with, say, a GPU that fell off the bus can be marked at a job's request.
     */
    public AgentPolicy(SlurmClient slurm, CommandRunner runner, String scontrol, NodeProber prober, String agentUser,
                       Optional<SiteReplaceCommand> replaceCommand, AgentMetrics metrics,
                       Optional<NodeHealth> healthCheck) {
        this(slurm, runner, scontrol, prober, agentUser, replaceCommand, metrics, healthCheck, MarkLedger.inMemory());
    }

    /**
     * With the record of its own marks ({@link MarkLedger}: the agent's state file, surviving
     * restarts), which is what {@code resume} and {@code replace} go by. The other constructors
     * keep it in memory only.
     */
    public AgentPolicy(SlurmClient slurm, CommandRunner runner, String scontrol, NodeProber prober, String agentUser,
                       Optional<SiteReplaceCommand> replaceCommand, AgentMetrics metrics,
                       Optional<NodeHealth> healthCheck, Path markLedgerDir) throws IOException {
        this(slurm, runner, scontrol, prober, agentUser, replaceCommand, metrics, healthCheck,
                MarkLedger.open(markLedgerDir));
    }

    private AgentPolicy(SlurmClient slurm, CommandRunner runner, String scontrol, NodeProber prober, String agentUser,
                        Optional<SiteReplaceCommand> replaceCommand, AgentMetrics metrics,
                        Optional<NodeHealth> healthCheck, MarkLedger ledger) {
        this.healthCheck = Objects.requireNonNull(healthCheck);
        this.metrics = Objects.requireNonNull(metrics);
        this.replaceCommand = Objects.requireNonNull(replaceCommand);
        this.slurm = Objects.requireNonNull(slurm);
        this.control = new SlurmControl(runner, SlurmControl.Programs.withScontrol(scontrol));
        this.prober = Objects.requireNonNull(prober);
        this.agentUser = Objects.requireNonNull(agentUser);
        this.authority = new JobAuthority(slurm, watched, ledger);
        this.ownMarks = new OwnMarks(slurm, control, prober, agentUser, ledger);
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
            return AgentResponse.of(List.of(), "job " + job.jobId() + ": " + request.report().event().word()
                    + " counted");
        }
        List<String> current = JobAuthority.nodesOf(job);
        if (request.op() == AgentRequest.Op.WATCH) {
            String key = WatchedJobs.key(job.jobId(), JobAuthority.owner(job));
            authority.forgetShrunkAway(job, current, key);
            List<String> recorded = watched.record(key, current);
            List<NodeDecision> decisions = recorded.stream()
                    .map(n -> new NodeDecision(n, NodeDecision.WATCHED, null,
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
                if (!again.allowed() || !authority.outside(again.job(), List.of(node)).isEmpty()) {
                    decisions.add(new NodeDecision(node, NodeDecision.REFUSED, null,
                            again.allowed() ? notTheJobs(again.job(), List.of(node)) : again.refusal()));
                    continue;
                }
                job = again.job();
            }
            Job now = job;
            decisions.add(switch (request.op()) {
                case DIAGNOSE -> diagnose(node).asDecision();
                case MARK -> mark(caller, now, node, request.action(), request.state());
                case RESUME -> ownMarks.resume(now, node);
                case REBOOT -> reboot(node);
                case REPLACE -> replaceCommand.isEmpty() ? new NodeDecision(node, NodeDecision.REFUSED, null,
                        "this agent has no replace command (start it with --replace-command)")
                        : ownMarks.replace(now, node, replaceCommand.get());
                case WATCH, REPORT -> throw new IllegalStateException("handled above");
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
    private record Diagnosis(String node, boolean healthy, String evidence, Optional<Node> record,
                             Optional<Boolean> answers) {
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
            return new Diagnosis(name, false, "could not read the node from Slurm: " + e.getMessage(), Optional.empty());
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
            if (!verdict.healthy()) {
                return new Diagnosis(name, false, "health check failed (" + verdict.action() + "): " + verdict.detail()
                        + "; " + slurmSays, found, Optional.of(true));
            }
            return new Diagnosis(name, true, slurmSays + "; slurmd accepts connections; health check passed", found,
                    Optional.of(true));
        }
        return new Diagnosis(name, true, slurmSays + "; slurmd accepts connections", found, Optional.of(true));
    }

    private NodeDecision mark(Caller caller, Job job, String name, NodeMark.Action action,
                              AgentRequest.MarkState asked) {
        return actOnUnhealthy(name, "marks", diagnosis -> {
            // DOWN is for a dead node, which Slurm would otherwise hold a requeued job on until
            // SlurmdTimeout. A node that still answers lets go of its jobs by itself: DOWN would only
            // kill its processes (the batch script, on a batch host with a GPU fault), so root gets FAIL
            // and an ordinary user is refused (JobAuthority#downRefusal), as over anyone else's job.
            // The diagnosis's own probe where it made one: a node cut off takes the probe's whole timeout
            // (seconds) to say so, which is not paid twice.
            boolean answers = diagnosis.answers().orElseGet(() -> diagnosis.record().isPresent()
                    && prober.unreachable(diagnosis.record().get()).isEmpty());
            if (asked == AgentRequest.MarkState.DOWN) {
                Optional<String> refusal = authority.downRefusal(caller, job, name, answers);
                if (refusal.isPresent()) {
                    return new NodeDecision(name, NodeDecision.REFUSED, diagnosis.evidence(), refusal.get());
                }
            }
            AgentRequest.MarkState state = asked == AgentRequest.MarkState.DOWN && answers
                    ? AgentRequest.MarkState.FAIL : asked;
            Optional<NodeReason> kept = actionReasonOfFailedNode(diagnosis.record());
            if (kept.isPresent()) {
                // Marked already, typically by this node's own agent on an Xid with the evidence in the
                // reason (Action:Reboot for a GPU reset); a job's generic Action:Replace must not erase it.
                // A failing dead node asked to go down still goes down (a requeue needs it), with that reason.
                boolean down = diagnosis.record().get().state().isDown();
                if (state.mark() == NodeMark.State.DOWN && !down) {
                    return counted(action, ownMarks.mark(job, new NodeMark(name, NodeMark.State.DOWN,
                            kept.get().text()), action, diagnosis.evidence(),
                            "set down, reason \"" + kept.get().text() + "\" kept"));
                }
                return new NodeDecision(name, NodeDecision.MARKED, diagnosis.evidence(),
                        "already out of service with reason \"" + kept.get().text() + "\": kept");
            }
            // NHC's words stay in the reason: they say what failed, and NHC no longer owns the node.
            NodeMark mark = diagnosis.record().filter(Node::drainedByNhc)
                    .map(n -> NodeMark.of(name, state.mark(), action, "(" + n.reason().orElseThrow().text() + ")"))
                    .orElse(NodeMark.of(name, state.mark(), action));
            return counted(action, ownMarks.mark(job, mark, action,
                    diagnosis.evidence(), "set " + state.word() + " with reason " + mark.reason()));
        });
    }

    private static Optional<NodeReason> actionReasonOfFailedNode(Optional<Node> node) {
        return node.filter(n -> n.state().isFail() || n.state().isDown()).flatMap(Node::reason)
                .filter(r -> r.isAction(NodeMark.Action.REPLACE.word()) || r.isAction(NodeMark.Action.REBOOT.word()));
    }

    private NodeDecision counted(NodeMark.Action action, NodeDecision decision) {
        if (!decision.refusedOrFailed()) {
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
            return new NodeDecision(name, NodeDecision.REFUSED, diagnosis.evidence(),
                    "the agent's own diagnosis finds the node healthy; it " + verb + " only unhealthy nodes");
        }
        return act.apply(diagnosis);
    }

    /**
     * Asks Slurm to reboot an unhealthy node when it is free and return it to service afterwards
     * ({@code scontrol reboot ASAP nextstate=RESUME reason=Action:Reboot}); the agent's own
     * diagnosis must agree, as for {@code mark}. Slurm answers success also for a node it skips
     * ({@link RebootRules}): a node in such a state is not asked for, and the node is read back
     * after the request, so the answer never claims a reboot Slurm did not take.
     */
    private NodeDecision reboot(String name) {
        return counted(NodeMark.Action.REBOOT, actOnUnhealthy(name, "reboots", diagnosis -> {
            Node before = diagnosis.record().get();
            if (RebootRules.pending(before.state())) {
                // Asked before (by this job's earlier recovery, the sweep, an administrator): what the
                // caller wants is under way, and asking again would be skipped. Its nextstate stands.
                return new NodeDecision(name, NodeDecision.REBOOTING, diagnosis.evidence(), "already rebooting, not"
                        + " asked again: Slurm shows " + before.state().display() + afterReboot(before));
            }
            Optional<String> skipped = RebootRules.whySkipped(before.state());
            if (skipped.isPresent()) {
                return new NodeDecision(name, NodeDecision.REFUSED, diagnosis.evidence(),
                        "not asked: " + skipped.get());
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
                return new NodeDecision(name, NodeDecision.FAILED, diagnosis.evidence(), "the reboot was asked for (`"
                        + write.command() + "`), but the node could not be read back to see whether Slurm took it: "
                        + e.getMessage());
            }
            RebootRules.Answer answer = RebootRules.readBack(name, reason, Optional.of(before), after);
            if (!answer.taken()) {
                return new NodeDecision(name, NodeDecision.FAILED, diagnosis.evidence(),
                        "Slurm did not take the reboot (`" + write.command() + "`): " + answer.detail());
            }
            return new NodeDecision(name, NodeDecision.REBOOTING, diagnosis.evidence(), "reboot requested"
                    + afterReboot(before) + "; " + answer.detail() + " (`" + write.command() + "`)");
        }));
    }

    /**
     * What the node is once rebooted: a completed reboot clears DRAIN and REBOOT_ISSUED, not FAIL
     * (node_mgr.c, validate_node_specs), so a node marked fail comes back IDLE+FAIL until resumed.
     */
    private static String afterReboot(Node before) {
        return before.state().isFail() ? "; it comes back still FAIL, for its job's supervisor (or an"
                + " administrator) to resume" : ", back in service when it is up";
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
