package org.slurmautoresume.supervisor.step;

import java.time.Duration;
import java.util.OptionalLong;
import org.slurmautoresume.slurm.exec.ControllerOutage;

/**
 * Tells the job's output and its timeline what a slurmctld outage does to the step: one line
 * when Slurm first does not answer, one when it answers again or when the supervisor stops
 * waiting for it. Between them every Slurm call keeps trying, so nothing else is said.
 */
final class ControllerOutageReport implements ControllerOutage.Listener {

    private final SupervisorLog log;
    private final JobTimeline timeline;

    ControllerOutageReport(SupervisorLog log, JobTimeline timeline) {
        this.log = log;
        this.timeline = timeline;
    }

    @Override
    public void unreachable(String why, Duration bound) {
        timeline.record(EventHistory.Kind.CONTROLLER, OptionalLong.empty(), "state", "unreachable",
                "boundSeconds", Long.toString(bound.toSeconds()));
        log.say("slurmctld does not answer (" + firstLine(why) + "); still protecting the step: Slurm calls keep"
                + " trying for up to " + bound.toSeconds() + " s (" + SupervisorSettings.CONTROLLER_OUTAGE + ")");
    }

    @Override
    public void answersAgain(Duration lasted) {
        timeline.record(EventHistory.Kind.CONTROLLER, OptionalLong.of(lasted.toMillis()), "state", "answers");
        log.say("slurmctld answers again after " + seconds(lasted) + " s");
    }

    @Override
    public void gaveUp(Duration lasted, Duration bound) {
        timeline.record(EventHistory.Kind.CONTROLLER, OptionalLong.of(lasted.toMillis()), "state", "given-up",
                "boundSeconds", Long.toString(bound.toSeconds()));
        log.say("slurmctld unreachable for " + seconds(lasted) + " s, past " + SupervisorSettings.CONTROLLER_OUTAGE
                + "=" + bound.toSeconds() + ": Slurm calls now fail at their first try until it answers; a node"
                + " fault found meanwhile cannot be marked or repaired, and the step ends as Slurm ends it");
    }

    private static long seconds(Duration d) {
        return Math.round(d.toMillis() / 1000.0);
    }

    /** scontrol's own words, one line, bounded: they go into the job's output. */
    private static String firstLine(String why) {
        String line = why.lines().filter(l -> !l.isBlank()).reduce((a, b) -> b).orElse("no answer").strip();
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }
}
