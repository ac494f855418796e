package org.slurmautoresume.supervisor.step.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        return new JobTimeline(Optional.of(new EventHistory(dir, "tester", "42", message -> {})), Optional.empty());
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
        String go = dir.resolve("go").toString();
        for (Map<String, String> env : List.of(
                Map.of(PhasePause.AT, "shrink"),
                Map.of(PhasePause.UNTIL, go),
                Map.of(PhasePause.AT, "shrink", PhasePause.UNTIL, "relative/go"),
                Map.of(PhasePause.AT, "lunch", PhasePause.UNTIL, go),
                Map.of(PhasePause.AT, "shrink,,rerun", PhasePause.UNTIL, go))) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class, () -> PhasePause.fromEnvironment(env, timeline()), env.toString());
            assertTrue(e.getMessage().contains(PhasePause.AT), e.getMessage());
        }
    }

    @Test
    void eachNamedPhaseWaitsForItsOwnFileOnceAndIsOnTheTimeline() throws Exception {
        JobTimeline timeline = timeline();
        Path prefix = dir.resolve("go");
        PhasePause pause = PhasePause.fromEnvironment(
                Map.of(PhasePause.AT, "shrink,rerun", PhasePause.UNTIL, prefix.toString()), timeline);
        pause.at(PhasePause.Phase.MARK); // not named: no pause
        CompletableFuture<Void> paused = CompletableFuture.runAsync(() -> pause.at(PhasePause.Phase.SHRINK));
        assertThrows(TimeoutException.class, () -> paused.get(300, TimeUnit.MILLISECONDS), "it waits for the file");
        Files.createFile(dir.resolve("go.rerun")); // another phase's file does not release it
        assertThrows(TimeoutException.class, () -> paused.get(300, TimeUnit.MILLISECONDS));
        assertEquals(List.of("pause:shrink"), phases(timeline));
        Files.createFile(dir.resolve("go.shrink"));
        paused.get(5, TimeUnit.SECONDS);
        pause.at(PhasePause.Phase.RERUN); // its file is there: passes at once
        Files.delete(dir.resolve("go.shrink"));
        CompletableFuture.runAsync(() -> pause.at(PhasePause.Phase.SHRINK)).get(5, TimeUnit.SECONDS); // once only
        assertEquals(List.of("pause:shrink", "pause:rerun"), phases(timeline));
    }

    private List<String> phases(JobTimeline timeline) throws Exception {
        return events(timeline).stream()
                .map(e -> e.event() + ":" + e.details().get("phase"))
                .toList();
    }
}
