package org.slurmautoresume.supervisor.step.diagnosis;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.exec.RetryPolicy;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.supervisor.step.watch.NodeStateRead;

/**
 * Decides how an attempt ended from Slurm's own records and srun's own words. Ends that a
 * person or Slurm chose (cancel, time limit, preemption, requeue, a stop signal) win over
 * everything else, so they are never re-run.
 */
public final class AttemptClassifier {

    public Classification classify(AttemptEvidence evidence) {
        if (evidence.exitStatus() == 0) {
            return Classification.of(Outcome.SUCCEEDED, "srun exited 0");
        }
        if (evidence.stopSignal().isPresent()) {
            return Classification.of(
                    Outcome.INTERRUPTED,
                    "the supervisor received " + evidence.stopSignal().get().displayName());
        }
        Optional<Classification> byJob = evidence.jobAfter().flatMap(AttemptClassifier::byJobState);
        if (byJob.isPresent()) {
            return byJob.get();
        }
        Optional<String> unstarted = notStarted(evidence.stderrTail());
        if (unstarted.isPresent()) {
            return Classification.of(Outcome.NOT_STARTED, "srun could not start the step: " + unstarted.get());
        }
        Optional<Classification> beforeRegistration = refusedBeforeRegistration(evidence);
        if (beforeRegistration.isPresent()) {
            return beforeRegistration.get();
        }
        Optional<Classification> byText = byStderr(evidence.stderrTail());
        if (byText.isPresent() && byText.get().outcome() != Outcome.NODE_FAULT) {
            return byText.get();
        }
        List<String> faulty = faultyNodes(evidence);
        if (!faulty.isEmpty()) {
            return new Classification(
                    Outcome.NODE_FAULT,
                    "node(s) " + String.join(",", faulty) + " of the step are down, failed or not responding",
                    faulty);
        }
        List<String> dropped = droppedFromJob(evidence);
        if (!dropped.isEmpty()) {
            return new Classification(Outcome.NODE_FAULT, "the job lost node(s) " + String.join(",", dropped), dropped);
        }
        List<Node> drainedByNhc = drainedByNhc(evidence);
        if (!drainedByNhc.isEmpty()) {
            return new Classification(
                    Outcome.NODE_FAULT,
                    "the site's health check (NHC) drained " + NodeStateRead.describe(drainedByNhc),
                    drainedByNhc.stream().map(Node::name).toList());
        }
        if (byText.isPresent()) {
            return byText.get();
        }
        return Classification.of(Outcome.APP_FAILURE, "srun exited " + evidence.exitStatus() + " on healthy nodes");
    }

    private static Optional<Classification> byJobState(Job job) {
        JobState state = job.state();
        return switch (state) {
            case CANCELLED ->
                Optional.of(Classification.of(Outcome.CANCELLED, "job " + job.jobId() + " was cancelled"));
            case TIMEOUT, DEADLINE ->
                Optional.of(Classification.of(Outcome.TIME_LIMIT, "job " + job.jobId() + " reached its time limit"));
            case PREEMPTED ->
                Optional.of(Classification.of(Outcome.PREEMPTED, "job " + job.jobId() + " was preempted"));
            case REQUEUED, REQUEUE_HOLD, REQUEUE_FED, PENDING ->
                Optional.of(
                        Classification.of(Outcome.REQUEUED, "job " + job.jobId() + " was requeued (" + state + ")"));
            case NODE_FAIL ->
                Optional.of(new Classification(
                        Outcome.NODE_FAULT,
                        "job " + job.jobId() + " ended NODE_FAIL: Slurm killed the whole job",
                        List.of()));
            default -> Optional.empty();
        };
    }

    /** srun's and slurmstepd's own messages; e.g. "*** STEP 12.0 ON node1 CANCELLED AT ... DUE TO TIME LIMIT ***". */
    private static Optional<Classification> byStderr(List<String> lines) {
        Classification found = null;
        for (String line : lines) {
            if (line.contains("DUE TO TIME LIMIT")) {
                return Optional.of(Classification.of(Outcome.TIME_LIMIT, "Slurm says: " + line.strip()));
            }
            if (line.contains("DUE TO PREEMPTION")) {
                return Optional.of(Classification.of(Outcome.PREEMPTED, "Slurm says: " + line.strip()));
            }
            if (line.contains("Node failure on") || line.contains("DUE TO NODE FAILURE")) {
                found = new Classification(Outcome.NODE_FAULT, "Slurm says: " + line.strip(), nodesNamedIn(line));
            } else if (line.contains("CANCELLED AT") && found == null) {
                found = Classification.of(Outcome.CANCELLED, "Slurm says: " + line.strip());
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * srun's own error when it could not get its allocation confirmed or its step created because
     * slurmctld did not answer ("srun: error: Unable to create step for job 12: Unable to contact
     * slurm controller (connect failure)"). Only srun's lines count: the tasks' output is the user's.
     */
    static Optional<String> notStarted(List<String> lines) {
        for (String line : lines) {
            String text = line.strip();
            boolean beforeStart = text.startsWith("srun: error: Unable to create step")
                    || text.startsWith("srun: error: Unable to confirm allocation");
            if (beforeStart && RetryPolicy.mentionsUnreachableController(text)) {
                return Optional.of(text.length() > 200 ? text.substring(0, 200) + "..." : text);
            }
        }
        return Optional.empty();
    }

    /**
     * srun's step refused as "Memory required by task is not available" while a node of the step
     * is UNKNOWN: a restarted slurmctld has not heard from that node yet and words the refusal so
     * ({@link NodeRegistration}). Nothing ran; the nodes are the ones to wait for.
     */
    static Optional<Classification> refusedBeforeRegistration(AttemptEvidence evidence) {
        for (String line : evidence.stderrTail()) {
            if (!NodeRegistration.isRefusal(line)) {
                continue;
            }
            String text = line.strip();
            List<String> waiting = NodeRegistration.unregistered(evidence.stepNodesAfter(), evidence.stepHosts());
            if (!waiting.isEmpty()) {
                return Optional.of(new Classification(
                        Outcome.NOT_STARTED,
                        "srun could not start the step: slurmctld" + " has not heard from " + Hostlist.compress(waiting)
                                + " since it started (" + text + ")",
                        waiting));
            }
            // The nodes may have registered between srun's refusal and the supervisor's look at them: a
            // slurmctld that started moments before the attempt ended is the same refusal.
            if (evidence.controllerUp()
                    .filter(up -> up.compareTo(NodeRegistration.JUST_RESTARTED) < 0)
                    .isPresent()) {
                return Optional.of(new Classification(
                        Outcome.NOT_STARTED,
                        "srun could not start the step: slurmctld"
                                + " had started "
                                + evidence.controllerUp().get().toSeconds() + " s before, while the step's"
                                + " nodes were registering (" + text + ")",
                        evidence.stepHosts()));
            }
            return Optional.empty();
        }
        return Optional.empty();
    }

    private static List<String> nodesNamedIn(String line) {
        int at = line.indexOf("Node failure on ");
        if (at < 0) {
            return List.of();
        }
        String rest = line.substring(at + "Node failure on ".length()).strip();
        String node = rest.split("\\s+")[0];
        return Hostlist.isValidHostname(node) ? List.of(node) : List.of();
    }

    private static List<String> faultyNodes(AttemptEvidence evidence) {
        List<String> faulty = new ArrayList<>();
        for (Node node : evidence.stepNodesAfter()) {
            if (evidence.stepHosts().contains(node.name()) && node.state().isUnhealthy()) {
                faulty.add(node.name());
            }
        }
        return faulty;
    }

    /**
     * Step nodes the site's NHC drained: its verdict that the node is faulty. A drain alone lets
     * a running step finish (the watch does not end it); a step that failed there failed on a
     * node its own health check had found bad.
     */
    private static List<Node> drainedByNhc(AttemptEvidence evidence) {
        return evidence.stepNodesAfter().stream()
                .filter(node -> evidence.stepHosts().contains(node.name()))
                .filter(Node::drainedByNhc)
                .toList();
    }

    private static List<String> droppedFromJob(AttemptEvidence evidence) {
        if (evidence.jobAfter().isEmpty()
                || evidence.jobAfter().get().nodeList().isEmpty()) {
            return List.of();
        }
        List<String> now = Hostlist.expand(evidence.jobAfter().get().nodeList());
        List<String> dropped = new ArrayList<>();
        for (String host : evidence.stepHosts()) {
            if (!now.contains(host)) {
                dropped.add(host);
            }
        }
        return dropped;
    }
}
