package org.slurmautoresume.supervisor.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PhasePauseTest {

    @TempDir
    Path dir;

    private JobTimeline timeline() {
        return new JobTimeline(Optional.of(new EventHistory(dir, "tester", "42", message -> { })), Optional.empty());
    }

    private List<EventHistory.Event> events(JobTimeline timeline) throws Exception {
        return EventHistory.read(timeline.history().orElseThrow().path(), new ArrayList<>());
    }

    @Test
    void withoutTheVariablesNothingPauses() {
        assertSame(PhasePause.NONE, PhasePause.fromEnvironment(Map.of(), timeline()));
        PhasePause.NONE.at(PhasePause.Phase.SHRINK); // returns at once
    }

    @Test
    void aMistakeIsNamedNotIgnored() {
        Path go = dir.resolve("go");
        for (Map<String, String> env : List.of(Map.of(PhasePause.AT, "shrink"), Map.of(PhasePause.UNTIL, go.toString()),
                Map.of(PhasePause.AT, "shrink", PhasePause.UNTIL, "relative/go"),
                Map.of(PhasePause.AT, "lunch", PhasePause.UNTIL, go.toString()))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> PhasePause.fromEnvironment(env, timeline()), env.toString());
            assertTrue(e.getMessage().contains(PhasePause.AT), e.getMessage());
        }
    }

    @Test
    void theNamedPhaseWaitsForTheFileOnceAndIsOnTheTimeline() throws Exception {
        JobTimeline timeline = timeline();
        Path go = dir.resolve("go");
        PhasePause pause = PhasePause.fromEnvironment(Map.of(PhasePause.AT, "shrink", PhasePause.UNTIL, go.toString()),
                timeline);
        pause.at(PhasePause.Phase.MARK); // another phase: no pause
        CompletableFuture<Void> paused = CompletableFuture.runAsync(() -> pause.at(PhasePause.Phase.SHRINK));
        assertThrows(TimeoutException.class, () -> paused.get(300, TimeUnit.MILLISECONDS), "it waits for the file");
        List<EventHistory.Event> events = events(timeline);
        assertEquals(List.of("pause:shrink"), events.stream().map(e -> e.event() + ":" + e.details().get("phase")).toList());
        Files.createFile(go);
        paused.get(5, TimeUnit.SECONDS);
        Files.delete(go);
        CompletableFuture<Void> again = CompletableFuture.runAsync(() -> pause.at(PhasePause.Phase.SHRINK));
        again.get(5, TimeUnit.SECONDS); // the second time through, no pause
        assertFalse(Files.exists(go));
        assertEquals(1, events(timeline).size());
    }
}
