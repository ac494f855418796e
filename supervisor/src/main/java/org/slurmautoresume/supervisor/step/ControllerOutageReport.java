package org.slurmautoresume.supervisor.step;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.slurmautoresume.slurm.exec.ControllerOutage;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobTimeline;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;

/**
 * Tells the job's output and its timeline what a slurmctld outage does to the step: one line
 * when Slurm first does not answer, one when it answers again or when the supervisor stops
 * waiting for it. Between them every Slurm call keeps trying, so nothing else is said.
 *
 * <p>An outage can begin before the job has been read, and only that read tells whether the
 * timeline file on disk was left by an earlier job with the same id (which is then removed).
 * Events met before it are held back until {@link #timelineReady()}, with the time they happened.
 */
public final class ControllerOutageReport implements ControllerOutage.Listener {

    private final SupervisorLog log;
    private final JobTimeline timeline;
    private final List<String[]> held = new ArrayList<>();
    private boolean ready;

    public ControllerOutageReport(SupervisorLog log, JobTimeline timeline) {
        this.log = log;
        this.timeline = timeline;
    }

    /** The job was read and a stale timeline dealt with: events go to the timeline from now on. */
    public void timelineReady() {
        List<String[]> pending;
        synchronized (this) {
            ready = true;
            pending = List.copyOf(held);
            held.clear();
        }
        pending.forEach(this::record);
    }

    @Override
    public void unreachable(String why, Duration bound) {
        event(-1, "state", "unreachable", "boundSeconds", Long.toString(bound.toSeconds()));
        log.say("slurmctld does not answer (" + firstLine(why) + "); still protecting the step: Slurm calls keep"
                + " trying for up to " + bound.toSeconds() + " s (" + SupervisorSettings.CONTROLLER_OUTAGE + ")");
    }

    @Override
    public void answersAgain(Duration lasted) {
        event(lasted.toMillis(), "state", "answers");
        log.say("slurmctld answers again after " + seconds(lasted) + " s");
    }

    @Override
    public void gaveUp(Duration lasted, Duration bound) {
        event(lasted.toMillis(), "state", "given-up", "boundSeconds", Long.toString(bound.toSeconds()));
        log.say("slurmctld unreachable for " + seconds(lasted) + " s, past " + SupervisorSettings.CONTROLLER_OUTAGE
                + "=" + bound.toSeconds() + ": Slurm calls now fail at their first try until it answers; a node"
                + " fault found meanwhile cannot be marked or repaired, and the step ends as Slurm ends it");
    }

    /** {@code latencyMs} negative for none; the details end with when it happened. */
    private void event(long latencyMs, String... details) {
        String[] line = new String[details.length + 3];
        System.arraycopy(details, 0, line, 1, details.length);
        line[0] = Long.toString(latencyMs);
        line[details.length + 1] = "seenAt";
        line[details.length + 2] = Instant.now().toString();
        synchronized (this) {
            if (!ready) {
                held.add(line);
                return;
            }
        }
        record(line);
    }

    private void record(String[] line) {
        long latency = Long.parseLong(line[0]);
        String[] details = new String[line.length - 1];
        System.arraycopy(line, 1, details, 0, details.length);
        timeline.record(
                EventHistory.Kind.CONTROLLER, latency < 0 ? OptionalLong.empty() : OptionalLong.of(latency), details);
    }

    private static long seconds(Duration d) {
        return Math.round(d.toMillis() / 1000.0);
    }

    /** scontrol's own words, one line, bounded: they go into the job's output. */
    private static String firstLine(String why) {
        String line = why.lines()
                .filter(l -> !l.isBlank())
                .reduce((a, b) -> b)
                .orElse("no answer")
                .strip();
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }
}
