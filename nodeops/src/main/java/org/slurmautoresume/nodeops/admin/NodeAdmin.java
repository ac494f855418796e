package org.slurmautoresume.nodeops.admin;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.client.RebootRules;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Caller;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;

/**
 * The admin node commands: replace, reboot and resume, first proposed (nodes read, jobs on
 * them found, the mid-replacement guard and Slurm's own reboot rules applied) so a front end can
 * show and confirm, then applied; a reboot is read back, since Slurm answers success for nodes it
 * skips. Also the status of nodes in replacement or reboot.
 */
public final class NodeAdmin {

    public static final String REPLACE_REASON = NodeMark.Action.REPLACE.reason();
    public static final String REBOOT_REASON = NodeMark.Action.REBOOT.reason();

    /** What would be done, node by node, before anything is. */
    public record Proposal(NodeOperation operation, boolean force, String reason, List<NodeTarget> targets) {

        public Proposal {
            targets = List.copyOf(targets);
        }

        /** Active jobs on the nodes that will change, each once, in the controller's order. */
        public List<Job> affectedJobs() {
            Set<String> seen = new HashSet<>();
            List<Job> jobs = new ArrayList<>();
            for (NodeTarget target : targets) {
                if (target.willChange()) {
                    target.jobs().stream().filter(j -> seen.add(j.jobId())).forEach(jobs::add);
                }
            }
            return jobs;
        }

        /** Forced replace sets DOWN: Slurm kills every job on the node at once. */
        public boolean killsJobs() {
            return operation == NodeOperation.REPLACE
                    && force
                    && !affectedJobs().isEmpty();
        }
    }

    private final SlurmClient slurm;
    private final NodeUpdater updater;

    public NodeAdmin(SlurmClient slurm, NodeUpdater updater) {
        this.slurm = Objects.requireNonNull(slurm);
        this.updater = Objects.requireNonNull(updater);
    }

    public Privilege.Check privilege(Caller caller) {
        if (caller.isRoot()) {
            return new Privilege.Check(true, "");
        }
        return Privilege.check(caller, slurm.config());
    }

    /**
     * Reads the nodes named by {@code hostlist} and the jobs on them. {@code detail}: added to
     * the action reason ({@code Action:Replace <detail>}) so a person can say why; may be null.
     */
    public Proposal propose(NodeOperation operation, String hostlist, boolean force, String detail) {
        List<Node> nodes = slurm.nodes(hostlist);
        Map<String, List<Job>> jobsByNode = activeJobsOn(nodes);
        List<NodeTarget> targets = new ArrayList<>();
        for (Node node : nodes) {
            targets.add(new NodeTarget(
                    node, jobsByNode.getOrDefault(node.name(), List.of()), refusal(operation, node, force)));
        }
        return new Proposal(operation, force, reason(operation, detail), targets);
    }

    public List<NodeOutcome> apply(Proposal proposal) {
        List<NodeOutcome> outcomes = new ArrayList<>();
        List<String> rebooting = new ArrayList<>();
        for (NodeTarget target : proposal.targets()) {
            String name = target.node().name();
            if (!target.willChange()) {
                outcomes.add(new NodeOutcome(
                        name, NodeOutcome.REFUSED, "", target.refusal().get()));
                continue;
            }
            switch (proposal.operation()) {
                case REPLACE ->
                    outcomes.add(NodeOutcome.of(
                            name,
                            updater.mark(new NodeMark(
                                    name,
                                    proposal.force() ? NodeMark.State.DOWN : NodeMark.State.FAIL,
                                    proposal.reason()))));
                case RESUME -> outcomes.add(NodeOutcome.of(name, updater.resume(name)));
                case REBOOT -> rebooting.add(name);
            }
        }
        if (!rebooting.isEmpty()) {
            outcomes.addAll(reboot(proposal, rebooting));
        }
        return outcomes;
    }

    /**
     * One command for all, so slurmctld schedules the reboots together; then one read of the
     * same nodes, since Slurm answers success for nodes it skipped (see {@link RebootRules}).
     */
    private List<NodeOutcome> reboot(Proposal proposal, List<String> names) {
        NodeUpdater.Result result = updater.rebootWhenIdle(names, proposal.reason());
        if (!result.ok()) {
            return names.stream().map(name -> NodeOutcome.of(name, result)).toList();
        }
        Map<String, Node> after = new HashMap<>();
        try {
            slurm.nodes(Hostlist.compress(names)).forEach(n -> after.put(n.name(), n));
        } catch (SlurmException e) {
            String why = "the reboot was asked for, but the nodes could not be read back to see whether Slurm"
                    + " took it: " + e.getMessage();
            return names.stream()
                    .map(name -> new NodeOutcome(name, NodeOutcome.FAILED, result.command(), why))
                    .toList();
        }
        Map<String, Node> before = new HashMap<>();
        proposal.targets().forEach(t -> before.put(t.node().name(), t.node()));
        List<NodeOutcome> outcomes = new ArrayList<>();
        for (String name : names) {
            RebootRules.Answer answer = RebootRules.readBack(
                    name,
                    proposal.reason(),
                    Optional.ofNullable(before.get(name)),
                    Optional.ofNullable(after.get(name)));
            String word =
                    answer.taken() ? NodeOutcome.CHANGED : answer.seen() ? NodeOutcome.IGNORED : NodeOutcome.FAILED;
            outcomes.add(new NodeOutcome(name, word, result.command(), answer.detail()));
        }
        return outcomes;
    }

    /** Nodes in replacement or reboot among {@code hostlist} (every node when null). */
    public List<NodeStatus> status(String hostlist) {
        List<Node> nodes = hostlist == null ? slurm.nodes() : slurm.nodes(hostlist);
        return nodes.stream().map(NodeStatus::of).flatMap(Optional::stream).toList();
    }

    /** {@code Action:Replace [detail]}, {@code Action:Reboot [detail]}; null for resume, which takes none. */
    private static String reason(NodeOperation operation, String detail) {
        return switch (operation) {
            case REPLACE -> NodeMark.Action.REPLACE.reason(detail);
            case REBOOT -> NodeMark.Action.REBOOT.reason(detail);
            case RESUME -> null;
        };
    }

    static Optional<String> refusal(NodeOperation operation, Node node, boolean force) {
        String state = node.state().display();
        if (operation == NodeOperation.RESUME) {
            // Not even forced: Slurm ends the state itself, and a resume can only make that worse.
            Optional<String> rebooting = RebootRules.whyNoResume(node);
            if (rebooting.isPresent()) {
                return rebooting;
            }
        }
        if (NodePhase.isMidReplacement(node) && !force) {
            String since =
                    node.reason().flatMap(r -> r.time()).map(t -> " since " + t).orElse("");
            String phase = NodePhase.of(node).map(NodePhase::word).orElse("marked");
            String hint = operation == NodeOperation.REPLACE
                    ? "; --force sets it DOWN now, killing its jobs (last resort)"
                    : "; changing it now can break the replacement (--force to do it anyway)";
            return Optional.of("mid-replacement (" + state + ", Action:Replace" + since + ", " + phase + ")" + hint);
        }
        if (operation == NodeOperation.RESUME && !needsResume(node)) {
            return Optional.of("nothing to resume: the node is " + state);
        }
        if (operation == NodeOperation.REBOOT) {
            Optional<String> skipped = RebootRules.whySkipped(node.state());
            if (skipped.isPresent()) {
                return Optional.of("not asked: " + skipped.get() + " (the node is " + state + ")");
            }
        }
        return Optional.empty();
    }

    /** REBOOT_REQUESTED included: a resume is how a pending reboot is called off. */
    private static boolean needsResume(Node node) {
        return node.state().isDown()
                || node.state().isFail()
                || node.state().isDrain()
                || node.state().has(RebootRules.REQUESTED);
    }

    /**
     * The jobs that hold each node, by the ids squeue lists there (no user text in them), each
     * shown from its record where that can be read; a record its owner's line break spoiled is
     * shown by id alone, never left out and never in the way of the other jobs.
     */
    private Map<String, List<Job>> activeJobsOn(List<Node> nodes) {
        Map<String, Job> readable = new HashMap<>();
        for (Job job : slurm.readJobs().jobs()) {
            readable.put(job.jobId(), job);
        }
        Map<String, List<Job>> byNode = new HashMap<>();
        for (Node node : nodes) {
            for (String id : slurm.activeJobIdsOn(node.name()).stream().sorted().toList()) {
                Job job = readable.get(id);
                byNode.computeIfAbsent(node.name(), h -> new ArrayList<>())
                        .add(job != null ? job : Job.knownByIdOnly(id, node.name()));
            }
        }
        return byNode;
    }
}
