package org.slurmautoresume.supervisor.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobTimeline;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;

class ControllerOutageReportTest {

    @TempDir
    Path dir;

    @Test
    void anOutageMetBeforeTheJobWasReadReachesTheTimelineOnlyOnceItIsReady() throws Exception {
        EventHistory history = new EventHistory(dir, "tester", "42", message -> {});
        JobTimeline timeline = new JobTimeline(Optional.of(history), Optional.empty());
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ControllerOutageReport report = new ControllerOutageReport(
                new SupervisorLog(new PrintStream(err, true, StandardCharsets.UTF_8), "42"), timeline);

        report.unreachable(
                "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n",
                Duration.ofSeconds(90));
        report.answersAgain(Duration.ofMillis(14_400));
        // Said at once; nothing in the file, which the job's start may still remove as another job's.
        assertTrue(err.toString(StandardCharsets.UTF_8)
                .contains("slurmctld does not answer (slurm_load_jobs error:"
                        + " Unable to contact slurm controller (connect failure)); still protecting the step"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("slurmctld answers again after 14 s"));
        assertFalse(Files.exists(history.path()) && Files.size(history.path()) > 0);

        report.timelineReady();
        report.gaveUp(Duration.ofSeconds(91), Duration.ofSeconds(90));

        List<EventHistory.Event> events = EventHistory.read(history.path(), new ArrayList<>());
        assertEquals(
                List.of("unreachable", "answers", "given-up"),
                events.stream().map(e -> e.details().get("state")).toList());
        assertTrue(events.stream()
                .allMatch(e -> e.event().equals("controller") && e.details().containsKey("seenAt")));
        assertEquals(14_400L, events.get(1).latencyMs().getAsLong());
        assertFalse(events.get(0).latencyMs().isPresent());
    }
}
