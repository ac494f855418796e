package org.slurmautoresume.supervisor.recovery;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.protocol.AgentException;
import org.slurmautoresume.agent.protocol.AgentRequest;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.agent.protocol.NodeDecision;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.exec.RetryPolicy;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;

/**
 * Repairs a job after a node fault so its step can run again: the privileged agent confirms
 * and marks the faulty nodes (fail, Action:Replace or Action:Reboot), the job drops them, the
 * replacement provider supplies nodes (hot spares, or the failed nodes back under their own
 * names), and the job grows back to its size. Each phase reports what it did and how long it
 * took.
 */
public final class NodeFaultRecovery {

    /** What recovery produced: the job on its new node set, or why it could not. */
    public record Result(boolean repaired, Job job, String why) {}

    /** How often a waiting recovery looks again for replacements. */
    private static final Duration POLL = Duration.ofSeconds(1);
    /** How often a mark the agent could not check for want of slurmctld is asked again, each after it answered. */
    private static final int CONTROLLER_ASKS = 3;
    /** How often a long wait says it is still waiting. */
    private static final Duration PROGRESS = Duration.ofSeconds(30);

    private final SlurmClient slurm;
    private final AgentClient agent;
    private final JobResizer resizer;
    private final ReplacementProvider provider;
    private final Consumer<String> say;

    public NodeFaultRecovery(
            SlurmClient slurm,
            AgentClient agent,
            JobResizer resizer,
            ReplacementProvider provider,
            Consumer<String> say) {
        this.slurm = Objects.requireNonNull(slurm);
        this.agent = Objects.requireNonNull(agent);
        this.resizer = Objects.requireNonNull(resizer);
        this.provider = Objects.requireNonNull(provider);
        this.say = Objects.requireNonNull(say);
    }

    /**
     * Asks the agent to confirm and mark suspect nodes; returns those now out of service: marked by
     * the agent, or found already taken out by someone else (who keeps the node).
     */
    public List<String> confirmAndMark(String jobId, List<String> suspects) {
        return confirmAndMark(jobId, suspects, AgentRequest.MarkState.FAIL);
    }

    /**
     * As {@link #confirmAndMark(String, List)}, marking them DOWN: what slurmctld itself does at
     * SlurmdTimeout, after which it lets go of a job's dead nodes (a requeued job otherwise stays
     * COMPLETING on a dead node until then, and cannot start again).
     */
    public List<String> confirmAndMarkDown(String jobId, List<String> suspects) {
        return confirmAndMark(jobId, suspects, AgentRequest.MarkState.DOWN);
    }

    private List<String> confirmAndMark(String jobId, List<String> suspects, AgentRequest.MarkState state) {
        long start = System.nanoTime();
        say.accept("diagnosing nodes " + Hostlist.compress(suspects));
        NodeMark.Action action = provider.action();
        AgentResponse response = agent.send(AgentRequest.mark(jobId, suspects, action, state));
        for (int again = 0; again < CONTROLLER_ASKS && slurmctldWasAway(response); again++) {
            // The node died while slurmctld was away: mark it as soon as a mark can be written.
            say.accept("the agent could not reach slurmctld to check the job; asking again once slurmctld answers");
            slurm.requireJob(jobId); // rides the outage: returns when slurmctld answers, throws past the bound
            response = agent.send(AgentRequest.mark(jobId, suspects, action, state));
        }
        List<String> marked = new ArrayList<>();
        for (NodeDecision decision : response.decisions()) {
            if (decision.decision().equals(NodeDecision.MARKED)) {
                marked.add(decision.node());
                say.accept("response: " + decision.node() + " is unhealthy (" + decision.evidence() + "); marked "
                        + state.word() + " with reason " + action.reason());
            } else if (decision.outOfService()) {
                // Someone else's decision took it out: out for this step too, but not the job's mark.
                marked.add(decision.node());
                say.accept("response: " + decision.node() + " is unhealthy (" + decision.evidence() + "); "
                        + decision.why());
            } else {
                say.accept("response: " + decision.node() + " " + decision.decision() + " (" + decision.why() + ")");
            }
        }
        say.accept("diagnosis took " + millis(start) + " ms");
        return marked;
    }

    /** Nothing was marked, and the agent said why: slurmctld did not answer it. */
    private static boolean slurmctldWasAway(AgentResponse response) {
        boolean marked = response.decisions().stream().anyMatch(NodeDecision::outOfService);
        return !marked
                && response.decisions().stream()
                        .anyMatch(d -> RetryPolicy.mentionsUnreachableController(
                                String.valueOf(d.why()) + " " + d.evidence()));
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
                .filter(n ->
                        failed.contains(n) && !n.equals(job.batchScriptHost().orElse("")))
                .toList();
        if (drop.isEmpty()) {
            return job;
        }
        say.accept("dropping unhealthy nodes " + Hostlist.compress(drop) + " from the job");
        return resizer.shrink(JobId.parse(job.jobId()), drop);
    }

    /**
     * Asks the agent to have the job start again as soon as it is requeued, instead of after
     * Slurm's requeue delay; returns the agent's answer (ok, or why not).
     */
    public AgentResponse expediteRequeue(String jobId) {
        return agent.send(AgentRequest.expedite(jobId));
    }

    /**
     * Tells the agent which nodes are the job's now, so they still count as the caller's after
     * the job drops them.
     */
    public void recordJobNodes(String jobId) {
        agent.send(AgentRequest.watch(jobId));
    }

    /**
     * {@link #recordJobNodes} on a thread of its own: an agent that is restarting is waited for
     * (up to the outage bound), and the step's probes, which need no agent, must not wait with it.
     */
    public void recordJobNodesInBackground(String jobId, Consumer<RuntimeException> failed) {
        Thread thread = new Thread(
                () -> {
                    try {
                        recordJobNodes(jobId);
                    } catch (RuntimeException e) {
                        failed.accept(e);
                    }
                },
                "agent-watch");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Whether a step whose node died is still on record. Slurm 22.05 keeps such a step, and its
     * CPUs on the surviving nodes, until the dead node's slurmd answers again (marking the node
     * down does not end it: verified on the local cluster), so a re-run must share them.
     */
    public boolean stepLingers(String jobId, String stepId) {
        return slurm.steps(jobId).stream().anyMatch(s -> s.stepId().equals(stepId));
    }

    /**
     * After the step ended: drop the faulty nodes, obtain replacements from the provider within
     * {@code wait}, grow the job until it holds {@code size} healthy nodes. Gives up early when
     * {@code stopped} says so (the job was cancelled) or the job is no longer running.
     *
     * @param stepPicksItsNodes the next attempt runs on nodes the supervisor names (in-job
     *                          spares), so a faulty node that cannot leave the job is simply not
     *                          among them; otherwise the step runs on every node of the job
     */
    public Result repair(
            String jobId,
            List<String> faulty,
            int size,
            boolean stepPicksItsNodes,
            LocalDateTime failedAt,
            Duration wait,
            BooleanSupplier stopped) {
        long start = System.nanoTime();
        Job job = slurm.requireJob(jobId);
        Optional<String> batchHost = job.batchScriptHost().filter(faulty::contains);
        if (batchHost.isPresent() && !stepPicksItsNodes) {
            // This supervisor runs there, so the node lives (a GPU fault, say) but cannot leave the job.
            return new Result(
                    false,
                    job,
                    "the batch host " + batchHost.get() + " is faulty and cannot leave the job"
                            + " (the job script runs there), and a step on all of the job's nodes would run there again;"
                            + " with an in-job spare the step moves off it");
        }
        job = drop(job, faulty);
        if (healthy(job, faulty) >= size) {
            return done(job, start);
        }
        try {
            provider.begin(jobId, faulty);
        } catch (ReplacementProvider.ProviderException | AgentException e) {
            return new Result(false, job, e.getMessage());
        }
        long deadline = System.nanoTime() + wait.toNanos();
        long nextProgress = System.nanoTime() + PROGRESS.toNanos();
        boolean waitingSaid = false;
        while (true) {
            if (stopped.getAsBoolean() || !job.state().isActive()) {
                return new Result(
                        false,
                        job,
                        "the job is " + (job.state().isActive() ? "being stopped" : job.state())
                                + "; recovery stopped");
            }
            List<String> current = Hostlist.expand(job.nodeList());
            int missing = size - healthy(job, faulty);
            List<String> exclude = new ArrayList<>(current);
            List<String> picked;
            try {
                picked = provider.ready(jobId, faulty, missing, exclude, failedAt);
            } catch (ReplacementProvider.ProviderException e) {
                return new Result(false, job, e.getMessage());
            } catch (SlurmException | AgentException e) {
                say.accept("looking for replacements failed (" + e.getMessage() + "); trying again");
                picked = List.of();
            }
            if (!picked.isEmpty()) {
                say.accept("replacement obtained: " + Hostlist.compress(picked) + " (" + provider.name() + ")");
                try {
                    job = resizer.grow(JobId.parse(jobId), picked);
                } catch (SlurmException e) {
                    return new Result(false, slurm.requireJob(jobId), "job expansion failed: " + e.getMessage());
                }
                say.accept("job expansion complete: job " + jobId + " now runs on " + job.nodeList());
                if (healthy(job, faulty) >= size) {
                    return done(job, start);
                }
                continue;
            }
            long now = System.nanoTime();
            if (now >= deadline) {
                return new Result(
                        false,
                        job,
                        "only " + current.size() + " of " + size + " nodes after waiting " + wait.toSeconds()
                                + " s for replacements (" + provider.name() + ")");
            }
            if (!waitingSaid || now >= nextProgress) {
                say.accept("waiting for " + missing + " replacement node" + (missing == 1 ? "" : "s") + " ("
                        + provider.name() + "), at most "
                        + Duration.ofNanos(deadline - now).toSeconds() + " s more");
                waitingSaid = true;
                nextProgress = now + PROGRESS.toNanos();
            }
            try {
                Thread.sleep(Math.min(
                        POLL.toMillis(),
                        Math.max(1, Duration.ofNanos(deadline - now).toMillis())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Result(false, job, "interrupted while waiting for replacements");
            }
            job = slurm.requireJob(jobId);
        }
    }

    /**
     * The job's nodes the step can use: all but a faulty batch host, the one faulty node a drop
     * leaves in the job. A failed node that came back under its own name (the replacement
     * provider's doing) counts again.
     */
    private static int healthy(Job job, List<String> faulty) {
        int faultyBatchHost = job.batchScriptHost().filter(faulty::contains).isPresent() ? 1 : 0;
        return Math.toIntExact(Hostlist.count(job.nodeList()) - faultyBatchHost);
    }

    private Result done(Job job, long startNanos) {
        say.accept("repair took " + millis(startNanos) + " ms");
        return new Result(true, job, "");
    }

    private static long millis(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
    }
}
