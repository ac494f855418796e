package org.slurmautoresume.supervisor.step.launch;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.StepId;
import org.slurmautoresume.supervisor.policy.Decision;
import org.slurmautoresume.supervisor.policy.DumpSettings;
import org.slurmautoresume.supervisor.policy.SignalNumber;
import org.slurmautoresume.supervisor.rules.RuleViolation;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobTimeline;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;

/**
 * Ending a running srun on the supervisor's initiative: the dump strategy's signal and grace
 * period, and the wait for srun after its step was cancelled (for a dead node, or a log rule).
 */
public final class SrunStopper {

    /**
     * How long srun may take to end by itself after its step was cancelled for a dead node,
     * counted from the scancel (the shrink runs meanwhile): long enough for the survivors' last
     * output, which their slurmstepd sends as they are killed. srun itself never ends sooner: it
     * waits up to 7 s for the dead node's tasks, which will never report.
     */
    public static final Duration SRUN_GRACE = Duration.ofMillis(250);

    private SrunStopper() {}

    /**
     * {@code dump}: the signal to srun (which passes it to every task), then up to the grace
     * period for the step to end by itself, so it can write a last-words checkpoint.
     */
    static void dump(Srun step, DumpSettings dump, SupervisorLog log, JobTimeline events) {
        log.say("dump: sending " + dump.signal().displayName()
                + " to the step for a last-words checkpoint; waiting up to "
                + dump.gracePeriod().toSeconds() + " s for it to end");
        long sent = System.nanoTime();
        if (!step.signal(dump.signal())) {
            log.say("dump: could not signal srun " + step.pid());
            return;
        }
        boolean ended = awaitExit(step, dump.gracePeriod());
        long waited = Duration.ofNanos(System.nanoTime() - sent).toMillis();
        events.record(
                EventHistory.Kind.DUMP,
                OptionalLong.of(waited),
                "signal",
                dump.signal().displayName(),
                "endedByItself",
                Boolean.toString(ended),
                "gracePeriodSeconds",
                Long.toString(dump.gracePeriod().toSeconds()));
        log.say(
                ended
                        ? "dump: the step ended by itself " + waited + " ms after "
                                + dump.signal().displayName()
                        : "dump: grace period of " + dump.gracePeriod().toSeconds() + " s over (" + waited + " ms)");
    }

    /**
     * After the step was cancelled: srun would wait up to 7 s for a dead node's tasks, which will
     * never report, and the healthy nodes' tasks are killed by their slurmstepd, so srun is given
     * {@code grace} and then killed.
     */
    public static void stop(Srun step, Duration grace) {
        if (!awaitExit(step, grace)) {
            step.kill();
        }
    }

    /** True when srun ended within {@code timeout}. */
    static boolean awaitExit(Srun step, Duration timeout) {
        try {
            return step.awaitExit(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !step.isAlive();
        }
    }

    /** After a log rule ended a step on healthy nodes: srun normally ends within a second of the scancel. */
    private static final Duration RULE_STOP_GRACE = Duration.ofSeconds(10);

    /** Ends a step a log rule fired on: a dump first when the decision asks for one, then scancel. */
    public static void stopForRule(
            Srun srun,
            Decision decision,
            RuleViolation violation,
            SupervisorLog log,
            JobTimeline timeline,
            Optional<JobId> jobId,
            SlurmControl control) {
        decision.dumpFirst().ifPresent(dump -> dump(srun, dump, log, timeline));
        if (!srun.isAlive()) {
            return;
        }
        Optional<String> id = timeline.stepId();
        log.say("stopping step "
                + id.map(s -> jobId.map(JobId::toString).orElse("?") + "." + s).orElse("(srun " + srun.pid() + ")")
                + " for " + violation.title());
        if (id.isPresent() && jobId.isPresent()) {
            control.cancel(StepId.parse(jobId.get() + "." + id.get()));
        } else {
            srun.signal(SignalNumber.TERM);
        }
        stop(srun, RULE_STOP_GRACE);
    }
}
