package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.agent.protocol.NodeDecision;
import org.slurmautoresume.slurm.model.Caller;

/** Each uid's share of the audit log: a flood of refusals cannot push the history out. */
class AuditSharesTest {

    private static final Caller FLOODER = new Caller(1001, "artest");
    private static final Caller OTHER = new Caller(1002, "arother");
    private static final Caller ROOT = new Caller(0, "root");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** A clock the test moves by hand. */
    private static final class FakeClock extends Clock {
        Instant now = Instant.parse("2026-11-28T08:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    private final FakeClock clock = new FakeClock();

    private static AgentResponse refusal() {
        return AgentResponse.refused(List.of("node3"), "job 7 is not yours");
    }

    private List<JsonNode> lines(Path file) throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            lines.add(JSON.readTree(line));
        }
        return lines;
    }

    private static long sum(List<JsonNode> lines, String field) {
        return lines.stream()
                .filter(l -> l.has(field))
                .mapToLong(l -> l.get(field).asLong())
                .sum();
    }

    private static long refusalLines(List<JsonNode> lines, long uid) {
        return lines.stream()
                .filter(l -> l.has("decisions")
                        && l.get("uid").asLong() == uid
                        && !l.get("ok").asBoolean())
                .count();
    }

    @Test
    void aFloodOfRefusalsWritesFewLinesKeepsTheFirstAndCountsEveryOneLeftOut() throws IOException {
        Path file = dir.resolve("audit.log");
        int sent = 10_000;
        try (AuditLog audit = new AuditLog(file, clock, AuditLog.DEFAULT_MAX_BYTES)) {
            assertTrue(audit.recordIntent(FLOODER, Map.of("op", "mark", "jobId", "7")));
            audit.recordOutcome(
                    FLOODER,
                    Map.of("op", "mark", "jobId", "7"),
                    AgentResponse.of(
                            List.of(new NodeDecision("node1", NodeDecision.MARKED, null, "marked")), "marked"));
            for (int i = 0; i < sent; i++) {
                audit.record(FLOODER, Map.of("op", "diagnose", "jobId", "99", "n", i), refusal());
                clock.advance(Duration.ofMillis(10)); // 100 a second for 100 s
            }
        }
        List<JsonNode> lines = lines(file);
        assertEquals("mark", lines.get(0).get("request").get("op").asText(), "the first line is still the intent");
        assertTrue(lines.get(0).has("intent"));
        long written = refusalLines(lines, FLOODER.uid());
        // The burst, then one a second for 100 s (and one for rounding).
        assertTrue(written <= AuditShares.ROUTINE_BURST + 100 + 1, "refusal lines written: " + written);
        assertTrue(written >= AuditShares.ROUTINE_BURST, "refusal lines written: " + written);
        assertEquals(sent, written + sum(lines, "refusalsLeftOut"), "each refusal written or counted");
        JsonNode leftOut =
                lines.stream().filter(l -> l.has("refusalsLeftOut")).findFirst().orElseThrow();
        assertEquals(FLOODER.uid(), leftOut.get("uid").asLong());
        assertEquals(0, leftOut.get("answersLeftOut").asInt());
        assertTrue(
                Instant.parse(leftOut.get("since").asText())
                        .isBefore(Instant.parse(leftOut.get("time").asText())),
                leftOut.toString());
    }

    @Test
    void oneUsersFloodLeavesAnotherUsersAndRootsLinesAlone() throws IOException {
        Path file = dir.resolve("audit.log");
        try (AuditLog audit = new AuditLog(file, clock, AuditLog.DEFAULT_MAX_BYTES)) {
            for (int i = 0; i < 1_000; i++) {
                audit.record(FLOODER, "{not json", refusal());
            }
            for (int i = 0; i < 100; i++) {
                audit.record(OTHER, Map.of("op", "diagnose", "jobId", "8"), refusal());
                audit.record(ROOT, Map.of("op", "diagnose", "jobId", "8"), AgentResponse.of(List.of(), "healthy"));
            }
        }
        List<JsonNode> lines = lines(file);
        assertEquals(AuditShares.ROUTINE_BURST, refusalLines(lines, FLOODER.uid()));
        assertEquals(100, refusalLines(lines, OTHER.uid()));
        assertEquals(100, lines.stream().filter(l -> l.get("uid").asLong() == 0).count());
        assertEquals(1_000 - AuditShares.ROUTINE_BURST, sum(lines, "refusalsLeftOut"), "written when the log closed");
    }

    @Test
    void theCountIsWrittenBeforeTheUsersNextLineOrAMinuteAfterTheLastOneLeftOut() throws IOException {
        Path file = dir.resolve("audit.log");
        try (AuditLog audit = new AuditLog(file, clock, AuditLog.DEFAULT_MAX_BYTES)) {
            for (int i = 0; i < AuditShares.ROUTINE_BURST + 5; i++) {
                audit.record(FLOODER, Map.of("op", "watch"), refusal());
            }
            audit.record(
                    FLOODER, Map.of("op", "watch"), AgentResponse.of(List.of(), "watching")); // an answer, left out
            clock.advance(Duration.ofSeconds(2)); // two tokens back
            audit.record(FLOODER, Map.of("op", "watch", "n", "next"), refusal());
            List<JsonNode> lines = lines(file);
            JsonNode count = lines.get(lines.size() - 2);
            assertEquals(5, count.get("refusalsLeftOut").asInt(), count.toString());
            assertEquals(1, count.get("answersLeftOut").asInt(), count.toString());
            assertEquals(
                    "next", lines.get(lines.size() - 1).get("request").get("n").asText());

            for (int i = 0; i < 10; i++) {
                audit.record(FLOODER, Map.of("op", "watch"), refusal());
            }
            clock.advance(AuditShares.LEFT_OUT_REPORTED_AFTER.minusSeconds(1));
            audit.recordSweep("not yet");
            audit.record(OTHER, Map.of("op", "watch"), refusal());
            assertEquals(5, sum(lines(file), "refusalsLeftOut"), "the flooder's quiet minute is not over");
            clock.advance(Duration.ofSeconds(1));
            audit.record(OTHER, Map.of("op", "watch"), refusal());
            // 10 sent with one token left: 9 left out, said once the flooder was quiet for a minute.
            assertEquals(5 + 9, sum(lines(file), "refusalsLeftOut"));
        }
    }

    @Test
    void requestsThatChangeSlurmPastTheSharePlanNothingAndEachAdmittedOneIsWrittenTwice() throws IOException {
        Path file = dir.resolve("audit.log");
        FakeSlurm slurm = new FakeSlurm().node("node1", "show-node-idle.txt");
        int sent = 200;
        List<String> answers = new ArrayList<>();
        try (AuditLog audit = new AuditLog(file, clock, AuditLog.DEFAULT_MAX_BYTES)) {
            AgentService service =
                    new AgentService(new AgentPolicy(slurm.runner, node -> Optional.empty(), "root"), audit);
            for (int i = 0; i < sent; i++) {
                answers.add(service.handle(FLOODER, "{\"op\":\"resume\",\"jobId\":\"7\",\"nodes\":[\"node1\"]}"));
            }
            for (int i = 0; i < 3; i++) {
                answers.add(service.handle(ROOT, "{\"op\":\"resume\",\"jobId\":\"7\",\"nodes\":[\"node1\"]}"));
            }
        }
        List<JsonNode> lines = lines(file);
        long intents = lines.stream()
                .filter(l -> l.has("intent") && l.get("uid").asLong() == FLOODER.uid())
                .count();
        assertEquals(AuditShares.CHANGES_BURST, intents, "requests admitted from one burst");
        long busy = answers.stream().filter(a -> a.contains("\"busy: ")).count();
        assertEquals(sent - AuditShares.CHANGES_BURST, busy, "the rest refused before the policy");
        assertEquals(
                3,
                lines.stream()
                        .filter(l -> l.has("intent") && l.get("uid").asLong() == 0)
                        .count(),
                "root is not limited");
        // Each admitted request's outcome follows its intent, even a refusal.
        assertEquals(
                intents,
                lines.stream()
                        .filter(l -> l.has("decisions")
                                && l.get("uid").asLong() == FLOODER.uid()
                                && !l.get("why").asText().startsWith("busy: "))
                        .count());
    }

    @Test
    void aRefusalIsOnlyAnAnswerWithNothingButRefusals() {
        assertTrue(AuditLog.isRefusal(AgentResponse.refused(List.of(), "bad request")));
        assertTrue(AuditLog.isRefusal(refusal()));
        assertFalse(AuditLog.isRefusal(AgentResponse.of(List.of(), "report recorded")));
        assertFalse(AuditLog.isRefusal(AgentResponse.of(
                List.of(
                        new NodeDecision("node1", NodeDecision.REFUSED, null, "no"),
                        new NodeDecision("node2", NodeDecision.FAILED, null, "scontrol failed")),
                "mixed")));
    }
}
