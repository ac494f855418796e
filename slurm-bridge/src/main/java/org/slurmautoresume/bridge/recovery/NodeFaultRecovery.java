package org.slurmautoresume.bridge.recovery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slurmautoresume.bridge.agent.AgentClient;
import org.slurmautoresume.bridge.agent.AgentRequest;
import org.slurmautoresume.bridge.agent.AgentResponse;
import org.slurmautoresume.bridge.agent.NodeDecision;
import org.slurmautoresume.bridge.hostlist.Hostlist;
import org.slurmautoresume.bridge.model.Job;
import org.slurmautoresume.bridge.slurm.SlurmClient;
import org.slurmautoresume.bridge.slurm.SlurmException;

/**
 * Repairs a job after a node fault so its step can run again: the privileged agent confirms
 * and marks the faulty nodes (fail, Action:Replace), the job drops them, hot spares are taken
 * from the pool, and the job grows back to its size. Each phase reports what it did and how
 * long it took.
 */
public final class NodeFaultRecovery {

    /** What recovery produced: the job on its new node set, or why it could not. */
    public record Result(boolean repaired, Job job, String why) {
    }

    private final SlurmClient slurm;
    private final AgentClient agent;
    private final JobResizer resizer;
    private final SparePool spares;
    private final Consumer<String> say;

    public NodeFaultRecovery(SlurmClient slurm, AgentClient agent, JobResizer resizer, SparePool spares,
                             Consumer<String> say) {
        this.slurm = Objects.requireNonNull(slurm);
        this.agent = Objects.requireNonNull(agent);
        this.resizer = Objects.requireNonNull(resizer);
        this.spares = Objects.requireNonNull(spares);
        this.say = Objects.requireNonNull(say);
    }

    /** Asks the agent to confirm and mark suspect nodes; returns those it marked. */
    public List<String> confirmAndMark(String jobId, List<String> suspects) {
        long start = System.nanoTime();
        say.accept("diagnosing nodes " + Hostlist.compress(suspects));
        AgentResponse response = agent.send(AgentRequest.mark(jobId, suspects, AgentRequest.Action.REPLACE,
                AgentRequest.MarkState.FAIL));
        List<String> marked = new ArrayList<>();
        for (NodeDecision decision : response.decisions()) {
            if (decision.decision().equals(NodeDecision.MARKED)) {
                marked.add(decision.node());
                say.accept("response: " + decision.node() + " is unhealthy (" + decision.evidence()
                        + "); marked fail with reason Action:Replace");
            } else {
                say.accept("response: " + decision.node() + " " + decision.decision() + " (" + decision.why() + ")");
            }
        }
        say.accept("diagnosis took " + millis(start) + " ms");
        return marked;
    }

    /**
     * Drops failed nodes from the job at once, while the step is still winding down: a job
     * submitted without --no-kill must lose them before slurmctld declares them DOWN, or Slurm
     * kills the whole job. The batch host is never dropped.
     */
    public void dropNow(String jobId, List<String> failed) {
        drop(slurm.requireJob(jobId), failed);
    }

    /** The job without the failed nodes it still has (never its batch host); the job itself if none. */
    private Job drop(Job job, List<String> failed) {
        List<String> drop = Hostlist.expand(job.nodeList()).stream()
                .filter(n -> failed.contains(n) && !n.equals(job.batchHost().orElse(""))).toList();
        if (drop.isEmpty()) {
            return job;
        }
        say.accept("dropping unhealthy nodes " + Hostlist.compress(drop) + " from the job");
        return resizer.shrink(job.jobId(), drop);
    }

    /**
     * Tells the agent which nodes are the job's now, so they still count as the caller's after
     * the job drops them.
     */
    public void recordJobNodes(String jobId) {
        agent.send(AgentRequest.watch(jobId));
    }

    /**
     * Whether a step whose node died is still on record. Slurm 22.05 keeps such a step, and its
     * CPUs on the surviving nodes, until the dead node's slurmd answers again (marking the node
     * down does not end it: verified on the local cluster), so a re-run must share them.
     */
    public boolean stepLingers(String jobId, String stepId) {
        return slurm.steps(jobId).stream().anyMatch(s -> s.stepId().equals(stepId));
    }

    /** After the step ended: drop the faulty nodes, take spares, grow the job back to its size. */
    public Result repair(String jobId, List<String> faulty, int size) {
        long start = System.nanoTime();
        Job job = slurm.requireJob(jobId);
        if (job.batchHost().isPresent() && faulty.contains(job.batchHost().get())) {
            return new Result(false, job, "the batch host " + job.batchHost().get() + " failed: the job script died"
                    + " with it, so only Slurm's requeue of the whole job can recover");
        }
        job = drop(job, faulty);
        List<String> current = Hostlist.expand(job.nodeList());
        int missing = size - current.size();
        if (missing > 0) {
            List<String> exclude = new ArrayList<>(current);
            exclude.addAll(faulty);
            List<String> picked = spares.pick(slurm.nodes(), missing, exclude);
            if (picked.size() < missing) {
                return new Result(false, job, "only " + picked.size() + " of " + missing
                        + " replacement nodes are free in the spare pool");
            }
            say.accept("replacement obtained: " + Hostlist.compress(picked) + " (hot spare)");
            try {
                job = resizer.grow(jobId, picked);
            } catch (SlurmException e) {
                return new Result(false, job, "job expansion failed: " + e.getMessage());
            }
            say.accept("job expansion complete: job " + jobId + " now runs on " + job.nodeList());
        }
        say.accept("repair took " + millis(start) + " ms");
        return new Result(true, job, "");
    }

    private static long millis(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
    }
}
