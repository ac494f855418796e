package org.slurmautoresume.supervisor.step.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobTimelineTest {

    @TempDir
    Path dir;

    @Test
    void eventsCarryTheirAttemptAndTheStepOnceFound() throws Exception {
        EventHistory history = new EventHistory(dir, "tester", "42", message -> {});
        JobTimeline timeline = new JobTimeline(Optional.of(history), Optional.empty());

        timeline.beginAttempt(1);
        timeline.record(EventHistory.Kind.LAUNCH, OptionalLong.empty(), "srunPid", "7");
        timeline.stepFound("0");
        timeline.record(EventHistory.Kind.ATTEMPT_ENDED, OptionalLong.empty(), "status", "1");
        timeline.beginAttempt(2);
        timeline.record(EventHistory.Kind.LAUNCH, OptionalLong.of(120), "srunPid", "8");

        List<EventHistory.Event> events = EventHistory.read(history.path(), new ArrayList<>());
        assertEquals(
                List.of(1, 1, 2),
                events.stream().map(EventHistory.Event::attempt).toList());
        assertNull(events.get(0).stepId());
        assertEquals("0", events.get(1).stepId());
        assertNull(events.get(2).stepId(), "a new attempt is a new step, not known yet");
        assertEquals(OptionalLong.of(120), events.get(2).latencyMs());
        assertEquals("8", events.get(2).details().get("srunPid"));
    }

    @Test
    void aNewAttemptForgetsThePreviousStep() {
        JobTimeline timeline = new JobTimeline(Optional.empty(), Optional.empty());
        timeline.beginAttempt(1);
        timeline.stepFound("3");
        assertEquals(Optional.of("3"), timeline.stepId());
        timeline.beginAttempt(2);
        assertEquals(Optional.empty(), timeline.stepId());
        assertEquals(2, timeline.attempt());
    }
}
