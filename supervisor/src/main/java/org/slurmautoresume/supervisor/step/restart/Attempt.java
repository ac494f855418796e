package org.slurmautoresume.supervisor.step.restart;

import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slurmautoresume.supervisor.policy.Decision;
import org.slurmautoresume.supervisor.policy.Fault;
import org.slurmautoresume.supervisor.rules.RuleViolation;

/**
 * One attempt, from srun's start to the decision on its end: what it inherited, and what the
 * threads that watch it (the slurmd probes, the log rules) and the recovery did to it meanwhile.
 * Made by the attempt loop for each attempt and dropped after it; nothing of it reaches the next.
 */
public final class Attempt {

    /**
     * Nodes the watch had the agent mark while the step ran, after which it ended the step.
     *
     * @param nodes       the nodes marked
     * @param finding     what the watch found ("slurmd of node2 stopped answering")
     * @param confirmedAt when the agent confirmed it
     */
    public record WatchMark(List<String> nodes, String finding, LocalDateTime confirmedAt) {
        public WatchMark {
            nodes = List.copyOf(nodes);
        }
    }

    /**
     * A log rule that fired during the attempt and what the restart policy decided then;
     * {@code acted} once the step was signalled or stopped for it, after which however the step
     * ends (even exit 0 after a dump) is the rule's doing.
     */
    public record RuleStop(RuleViolation violation, Fault fault, Decision decision, boolean acted) {}

    private final int number;
    private final NextAttempt inherited;
    private final AtomicReference<WatchMark> watchMark = new AtomicReference<>();
    private final AtomicReference<RuleStop> ruleStop = new AtomicReference<>();
    /** Whether recovery had the agent mark the faulty nodes after the attempt ended (the watch's own: {@link #watchMark}). */
    private final AtomicBoolean markedByRecovery = new AtomicBoolean();

    public Attempt(int number, NextAttempt inherited) {
        this.number = number;
        this.inherited = inherited;
    }

    /** 1 for the first run. */
    public int number() {
        return number;
    }

    /** What this attempt runs with. */
    public NextAttempt inherited() {
        return inherited;
    }

    /** The watch had the agent mark {@code mark}'s nodes and ends the step for them. */
    void watchMarked(WatchMark mark) {
        watchMark.set(mark);
    }

    public Optional<WatchMark> watchMark() {
        return Optional.ofNullable(watchMark.get());
    }

    /** The nodes the watch marked during this attempt, after which it ended the step; empty if none. */
    List<String> markedByWatch() {
        return watchMark().map(WatchMark::nodes).orElse(List.of());
    }

    public void ruleFired(RuleStop stop) {
        ruleStop.set(stop);
    }

    public Optional<RuleStop> ruleStop() {
        return Optional.ofNullable(ruleStop.get());
    }

    void recoveryMarked() {
        markedByRecovery.set(true);
    }

    /** Whether this attempt's faulty nodes were marked already, by the watch or by recovery. */
    boolean faultyNodesMarked() {
        return markedByRecovery.get()
                || watchMark.get() != null && !watchMark.get().nodes().isEmpty();
    }
}
