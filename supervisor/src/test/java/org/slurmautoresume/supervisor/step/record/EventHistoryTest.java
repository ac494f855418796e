package org.slurmautoresume.supervisor.step.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventHistoryTest {

    @TempDir
    Path dir;

    @Test
    void eventsComeBackWithTheirLatenciesAndDetails() throws IOException {
        List<String> failures = new ArrayList<>();
        EventHistory history = new EventHistory(dir, "alice", "42", failures::add);
        history.record(EventHistory.Kind.LAUNCH, 1, null, OptionalLong.empty(), "srunPid", "99");
        history.record(
                EventHistory.Kind.DETECTION,
                1,
                "0",
                OptionalLong.of(3159),
                "rule",
                "Heartbeat",
                "lastMatch",
                "loss=\"2\"\t\\ \u0001 ünïcode");
        List<String> skipped = new ArrayList<>();
        List<EventHistory.Event> events = EventHistory.read(history.path(), skipped);
        assertEquals(List.of(), skipped);
        assertEquals(List.of(), failures);
        assertEquals(2, events.size());
        assertEquals("launch", events.get(0).event());
        assertNull(events.get(0).stepId());
        assertEquals(OptionalLong.empty(), events.get(0).latencyMs());
        EventHistory.Event detection = events.get(1);
        assertEquals("detection", detection.event());
        assertEquals("42", detection.jobId());
        assertEquals("0", detection.stepId());
        assertEquals(OptionalLong.of(3159), detection.latencyMs());
        assertEquals("loss=\"2\"\t\\ \u0001 ünïcode", detection.details().get("lastMatch"));
        assertEquals(
                List.of("rule", "lastMatch"), List.copyOf(detection.details().keySet()));
        assertTrue(!detection.at().isBefore(events.get(0).at()));
    }

    @Test
    void everyLineIsOneValidJsonObject() throws IOException {
        EventHistory history = new EventHistory(dir, "alice", "42", message -> {});
        history.record(EventHistory.Kind.DECISION, 2, "1", OptionalLong.empty(), "reason", "a\nb");
        List<String> lines = Files.readAllLines(history.path());
        assertEquals(1, lines.size());
        assertEquals(
                "a\nb", new ObjectMapper().readTree(lines.get(0)).get("reason").asText());
        assertEquals(dir.resolve("autoresume-events-alice-42.jsonl"), history.path());
    }

    @Test
    void aLineCutShortIsSkippedAndNamed() throws IOException {
        Path file = EventHistory.fileFor(dir, "alice", "42");
        Files.writeString(
                file,
                "{\"at\":\"2026-11-23T00:00:00Z\",\"event\":\"launch\",\"jobId\":\"42\",\"attempt\":1,"
                        + "\"stepId\":null}\n{\"at\":\"2026-11-23T00:0");
        List<String> skipped = new ArrayList<>();
        assertEquals(1, EventHistory.read(file, skipped).size());
        assertEquals(1, skipped.size());
        assertTrue(skipped.get(0).startsWith(file + ":2: "), skipped.get(0));
    }

    @Test
    void aHistoryThatCannotBeWrittenIsReportedOnceAndNeverThrows() {
        List<String> failures = new ArrayList<>();
        EventHistory history = new EventHistory(dir.resolve("missing"), "alice", "42", failures::add);
        history.record(EventHistory.Kind.LAUNCH, 1, null, OptionalLong.empty());
        history.record(EventHistory.Kind.LAUNCH, 2, null, OptionalLong.empty());
        assertEquals(1, failures.size());
        assertTrue(failures.get(0).contains("cannot write the job's event history"), failures.get(0));
    }
}
