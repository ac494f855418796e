package org.slurmautoresume.supervisor.step.restart;

import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Predicate;
import org.slurmautoresume.agent.protocol.AgentException;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.Step;
import org.slurmautoresume.slurm.model.StepId;
import org.slurmautoresume.supervisor.recovery.NodeFaultRecovery;
import org.slurmautoresume.supervisor.step.launch.Srun;
import org.slurmautoresume.supervisor.step.launch.SrunStopper;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobTimeline;
import org.slurmautoresume.supervisor.step.record.PhasePause;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;
import org.slurmautoresume.supervisor.step.watch.NodeStateRead;
import org.slurmautoresume.supervisor.step.watch.StepWatch;

/**
 * What the supervisor does while a step still runs and its watch finds nodes gone: a slurmd
 * that fell silent, or a node Slurm took out of service. The agent confirms and marks them, the
 * step is ended at once (instead of after slurmctld's SlurmdTimeout) and, where the job is to
 * run again or end, the nodes are dropped from it. Made for one attempt: which nodes it marked,
 * what it found and when go into that {@link Attempt}, for the decision at its end.
 */
final class WatchResponse implements StepWatch.SlurmdFindings {

    private final Attempt attempt;
    /** Who confirms and marks the nodes the watch found. */
    private final NodeFaultRecovery watcher;
    /** Whether the job is to lose these marked nodes at once (else it keeps its size for a requeue). */
    private final Predicate<List<String>> shrinkNow;
    /** Why no agent answered when the job's recovery paths were learnt; empty when one did. */
    private final Optional<String> agentAway;

    private final SlurmControl control;
    private final PhasePause pause;
    private final SupervisorLog log;
    private final JobTimeline timeline;

    WatchResponse(
            Attempt attempt,
            NodeFaultRecovery watcher,
            Predicate<List<String>> shrinkNow,
            Optional<String> agentAway,
            SlurmControl control,
            PhasePause pause,
            SupervisorLog log,
            JobTimeline timeline) {
        this.attempt = attempt;
        this.watcher = watcher;
        this.shrinkNow = shrinkNow;
        this.agentAway = agentAway;
        this.control = control;
        this.pause = pause;
        this.log = log;
        this.timeline = timeline;
    }

    @Override
    public void watching(Step step) {
        watcher.recordJobNodesInBackground(step.jobId(), e -> {
            if (agentAway.isEmpty()) { // one away at the start was said once, with the recovery paths
                log.say("the agent did not record the job's nodes (" + e.getMessage() + ")");
            }
        });
    }

    /**
     * A node that stopped answering is confirmed and marked by the agent, and the step is ended
     * at once (and the node dropped from the job) instead of waiting for slurmctld's SlurmdTimeout.
     */
    @Override
    public void silent(Step step, Srun srun, List<String> suspects, List<String> gone, Instant found) {
        String why = StepWatch.PROBE_MISSES + " probes in a row missed"
                + (gone.isEmpty()
                        ? ""
                        : " (" + Hostlist.compress(gone) + ": the agent and slurmd refused connections, probed every "
                                + StepWatch.GONE_PACE.toMillis() + " ms)");
        timeline.record(
                EventHistory.Kind.DETECTION,
                OptionalLong.empty(),
                "source",
                "slurmd-probe",
                "nodes",
                Hostlist.compress(suspects),
                "gone",
                Hostlist.compress(gone),
                "reason",
                why,
                "foundAt",
                found.toString());
        log.say("slurmd of " + Hostlist.compress(suspects) + ": " + why);
        endStepWithout(step, srun, suspects, "slurmd of " + Hostlist.compress(suspects) + " stopped answering");
    }

    @Override
    public void markedOut(Step step, Srun srun, List<Node> nodes) {
        List<String> names = nodes.stream().map(Node::name).toList();
        String why = NodeStateRead.describe(nodes);
        timeline.record(
                EventHistory.Kind.DETECTION,
                sinceMarked(nodes, step.startTime(), LocalDateTime.now()),
                "source",
                "node-state",
                "nodes",
                Hostlist.compress(names),
                "reason",
                why);
        log.say("Slurm took " + why + " out of service while the step ran");
        endStepWithout(step, srun, names, "Slurm took " + why + " out of service");
    }

    /**
     * A node-state detection's latency: from the earliest time slurmctld gave one of the nodes its
     * reason ({@code [user@time]}, whole seconds, slurmctld's clock as scontrol prints it here)
     * to {@code now}. None where no node has a reason time, where it is before the step started
     * (a reason left from before: not this fault's), or after {@code now} (clocks apart).
     */
    static OptionalLong sinceMarked(List<Node> nodes, Optional<LocalDateTime> stepStart, LocalDateTime now) {
        Optional<LocalDateTime> marked = nodes.stream()
                .map(Node::reason)
                .flatMap(Optional::stream)
                .map(r -> r.time())
                .flatMap(Optional::stream)
                .min(LocalDateTime::compareTo);
        if (marked.isEmpty()
                || marked.get().isAfter(now)
                || stepStart.map(start -> marked.get().isBefore(start)).orElse(false)) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(java.time.Duration.between(marked.get(), now).toMillis());
    }

    /** The agent confirms and marks, then the step is ended and the nodes dropped from the job. */
    private void endStepWithout(Step step, Srun srun, List<String> suspects, String found) {
        try {
            pause.at(PhasePause.Phase.MARK);
            List<String> confirmed = watcher.confirmAndMark(step.jobId(), suspects);
            if (!confirmed.isEmpty() && srun.isAlive()) {
                attempt.watchMarked(new Attempt.WatchMark(confirmed, found, LocalDateTime.now()));
                log.say("ending step " + step.fullId() + " now so it can run again without "
                        + Hostlist.compress(confirmed));
                long cancelled = System.nanoTime();
                control.cancel(StepId.parse(step.fullId()));
                if (shrinkNow.test(confirmed)) {
                    pause.at(PhasePause.Phase.SHRINK);
                    watcher.dropNow(step.jobId(), confirmed);
                }
                SrunStopper.stop(srun, SrunStopper.SRUN_GRACE.minusNanos(System.nanoTime() - cancelled));
            }
        } catch (AgentException e) {
            log.say("the agent could not confirm the fault (" + e.getMessage() + ")");
        } catch (RuntimeException e) {
            log.say("could not drop " + Hostlist.compress(suspects) + " from the job yet (" + e.getMessage() + ")");
        }
    }
}
