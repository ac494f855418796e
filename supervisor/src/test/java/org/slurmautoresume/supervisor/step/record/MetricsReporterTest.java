package org.slurmautoresume.supervisor.step.record;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.agent.protocol.AgentReport;
import org.slurmautoresume.agent.protocol.AgentReport.Event;
import org.slurmautoresume.agent.protocol.AgentReport.Level;

/** Which timeline events the supervisor reports for the metrics, and as what. */
class MetricsReporterTest {

    private final MetricsReporter reporter = new MetricsReporter(Path.of("/nonexistent/agent.sock"), "6", what -> {});

    private Optional<AgentReport> report(EventHistory.Kind kind, int attempt, long latency, String... details) {
        Map<String, String> named = new java.util.HashMap<>();
        for (int i = 0; i + 1 < details.length; i += 2) {
            named.put(details[i], details[i + 1]);
        }
        return reporter.reportFor(kind, attempt, latency < 0 ? OptionalLong.empty() : OptionalLong.of(latency), named);
    }

    @Test
    void goodputIsReportedAsItSettlesAndTheReportsAddUpToTheJobsGoodput() throws Exception {
        java.util.List<EventHistory.Event> events = EventHistory.read(
                Path.of(getClass()
                        .getResource("/goodput/heartbeat-checkpoint-node-fault.jsonl")
                        .toURI()),
                new java.util.ArrayList<>());
        java.util.List<String> reportedAfter = new java.util.ArrayList<>();
        long[] sum = new long[6];
        for (EventHistory.Event e : events) {
            EventHistory.Kind kind = java.util.Arrays.stream(EventHistory.Kind.values())
                    .filter(k -> k.word().equals(e.event()))
                    .findFirst()
                    .orElseThrow();
            Optional<AgentReport> sent = reporter.goodputAfter(kind, e.attempt(), e.at(), e.latencyMs(), e.details());
            sent.ifPresent(r -> {
                reportedAfter.add(e.event() + "/" + e.attempt());
                AgentReport.Time t = r.time();
                long[] parts = {
                    t.productiveMs(), t.detectionMs(), t.recoveryMs(), t.restartMs(), t.redoneMs(), t.unattributedMs()
                };
                for (int i = 0; i < parts.length; i++) {
                    sum[i] += parts[i];
                }
            });
        }
        // The first attempt's end settles its work and detection, the relaunch its recovery, the second end the rest.
        assertEquals(java.util.List.of("attempt-ended/1", "launch/2", "attempt-ended/2"), reportedAfter);
        Goodput whole = Goodput.of(events, events.get(events.size() - 1).at(), true);
        assertEquals(whole.productive().toMillis(), sum[0]);
        assertEquals(whole.detection().toMillis(), sum[1]);
        assertEquals(whole.recovery().toMillis(), sum[2]);
        assertEquals(whole.restart().toMillis(), sum[3]);
        assertEquals(whole.redone().toMillis(), sum[4]);
        assertEquals(0, sum[5]);
        assertEquals(240_000, sum[0]);
    }

    @Test
    void aRelaunchIsReportedAtTheLevelOfTheDecisionBeforeIt() {
        assertEquals(Optional.of(AgentReport.of(Event.LAUNCH, 1, null)), report(EventHistory.Kind.LAUNCH, 1, -1));
        assertEquals(Optional.empty(), report(EventHistory.Kind.DECISION, 1, -1, "level", "RERUN_IN_PLACE"));
        assertEquals(Optional.of(AgentReport.relaunch(2, 120, Level.RETRY)), report(EventHistory.Kind.LAUNCH, 2, 120));
        report(EventHistory.Kind.DECISION, 2, -1, "level", "REPLACE_NODES_AND_RERUN");
        assertEquals(
                Optional.of(AgentReport.replacement(2, 4_600, 2)),
                report(EventHistory.Kind.REPLACEMENT, 2, 4_600, "faultyNodes", "node[2-3]", "nodeList", "node[1,4-5]"));
        assertEquals(
                Optional.of(AgentReport.relaunch(3, 4_650, Level.RECOVER)), report(EventHistory.Kind.LAUNCH, 3, 4_650));
    }

    @Test
    void aRestartThatLeavesOneMoreAtMostIsReportedAsABudgetRunningLow() {
        assertEquals(
                Optional.empty(),
                report(EventHistory.Kind.DECISION, 1, -1, "level", "RERUN_IN_PLACE", "stepRestartsLeft", "2"));
        assertEquals(
                Optional.of(AgentReport.of(Event.BUDGET_LOW, 2, null)),
                report(EventHistory.Kind.DECISION, 2, -1, "level", "REPLACE_NODES_AND_RERUN", "stepRestartsLeft", "1"));
        assertEquals(
                Optional.of(AgentReport.of(Event.BUDGET_LOW, 3, null)),
                report(EventHistory.Kind.DECISION, 3, -1, "level", "RERUN_IN_PLACE", "stepRestartsLeft", "0"));
        // Giving up or requeueing is no restart of the step: the give-up and requeue counts say those.
        assertEquals(
                Optional.empty(),
                report(EventHistory.Kind.DECISION, 4, -1, "level", "GIVE_UP", "stepRestartsLeft", "0"));
    }

    @Test
    void detectionsCarryTheirRuleOnlyWhenALogRuleFired() {
        assertEquals(
                Optional.of(AgentReport.detection(1, 3_100L, "log-rule", "Heartbeat", "HANGING")),
                report(
                        EventHistory.Kind.DETECTION,
                        1,
                        3_100,
                        "source",
                        "log-rule",
                        "rule",
                        "Heartbeat",
                        "state",
                        "HANGING",
                        "reason",
                        "no line matched"));
        assertEquals(
                Optional.of(AgentReport.detection(1, null, "slurmd-probe", null, null)),
                report(EventHistory.Kind.DETECTION, 1, -1, "source", "slurmd-probe", "nodes", "node2"));
        assertEquals(Optional.empty(), report(EventHistory.Kind.ATTEMPT_ENDED, 1, -1, "status", "1"));
        assertEquals(Optional.empty(), report(EventHistory.Kind.DUMP, 1, -1));
    }

    @Test
    void theRequestLineIsWhatTheAgentReadsStrictly() {
        AgentReport report = AgentReport.detection(2, 7L, "log-rule", "a \"quoted\" back\\slash é", "SLOW");
        String line = MetricsReporter.requestLine("6_1", report);
        assertEquals(
                org.slurmautoresume.agent.protocol.AgentRequest.report("6_1", report),
                org.slurmautoresume.agent.protocol.AgentRequest.fromJson(
                        new com.fasterxml.jackson.databind.ObjectMapper().valueToTree(readJson(line))));
    }

    private static Object readJson(String line) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readValue(line, Object.class);
        } catch (java.io.IOException e) {
            throw new AssertionError(line, e);
        }
    }
}
