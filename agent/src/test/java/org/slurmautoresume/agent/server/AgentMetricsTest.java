package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.agent.protocol.AgentJson;
import org.slurmautoresume.agent.protocol.AgentReport;
import org.slurmautoresume.agent.protocol.AgentReport.Event;
import org.slurmautoresume.agent.protocol.AgentReport.Level;
import org.slurmautoresume.agent.protocol.AgentRequest;
import org.slurmautoresume.agent.protocol.AgentRequestException;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.model.Caller;

/**
 * The agent's metrics as Prometheus scrapes them: over real HTTP on a free local port, read in
 * the text format. Job 6 is artest(1001)'s running job (see {@link AgentPolicyTest}).
 */
class AgentMetricsTest {

    private static final Caller ARTEST = new Caller(1001, "artest");
    private static final Caller MALLORY = new Caller(1002, "mallory");

    private final FakeSlurm slurm = new FakeSlurm()
            .job("6", "show-job-running-shrunk-nokill.txt", "node[1-3]")
            // Silent, and not yet taken out by Slurm: the agent's own mark is what takes it out.
            .node("node2", "show-node-mixed-not-responding.txt");
    private final AgentMetrics metrics = new AgentMetrics();
    private final AgentPolicy policy = new AgentPolicy(
            new org.slurmautoresume.slurm.client.SlurmClient(slurm.runner),
            slurm.runner,
            "scontrol",
            node -> java.util.Optional.empty(),
            "root",
            java.util.Optional.empty(),
            metrics);

    private static String scrape(HTTPServer server) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getPort() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return response.body();
    }

    /** The value of one sample line, {@code name{labels} value}; NaN when the line is absent. */
    private static double sample(String text, String series) {
        Matcher m =
                Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    @Test
    void reportsOfTheCallersOwnJobMoveTheCountersSeenOverHttp() throws Exception {
        try (HTTPServer server = metrics.serve(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            String before = scrape(server);
            assertEquals(0.0, sample(before, "autoresume_jobs_started_total"), before);

            for (AgentReport report : List.of(
                    AgentReport.of(Event.LAUNCH, 1, null),
                    AgentReport.detection(1, 3_130L, "log-rule", "Heartbeat", "HANGING"),
                    AgentReport.relaunch(2, 150, Level.RETRY),
                    AgentReport.replacement(2, 4_650, 2),
                    AgentReport.relaunch(3, 4_700, Level.RECOVER),
                    AgentReport.of(Event.SUCCEEDED, 3, null))) {
                AgentResponse response = policy.handle(ARTEST, AgentRequest.report("6", report));
                assertTrue(response.ok(), response.message());
            }
            assertFalse(policy.handle(MALLORY, AgentRequest.report("6", AgentReport.of(Event.GIVE_UP, 1, null)))
                    .ok());
            assertTrue(policy.handle(
                            ARTEST,
                            AgentRequest.mark(
                                    "6", List.of("node2"), NodeMark.Action.REPLACE, AgentRequest.MarkState.FAIL))
                    .ok());

            String after = scrape(server);
            assertEquals(1.0, sample(after, "autoresume_jobs_started_total"), after);
            assertEquals(1.0, sample(after, "autoresume_jobs_restarted_total{level=\"retry\"}"), after);
            assertEquals(1.0, sample(after, "autoresume_jobs_restarted_total{level=\"recover\"}"), after);
            assertEquals(1.0, sample(after, "autoresume_jobs_successful_total"), after);
            // mallory's report about artest's job was refused, so nothing failed
            assertEquals(0.0, sample(after, "autoresume_jobs_failed_total"), after);
            assertEquals(2.0, sample(after, "autoresume_nodes_replaced_total"), after);
            assertEquals(1.0, sample(after, "autoresume_nodes_marked_total{action=\"replace\"}"), after);
            assertEquals(1.0, sample(after, "autoresume_rule_violations_total{kind=\"log\",state=\"HANGING\"}"), after);
            assertEquals(
                    3.13,
                    sample(after, "autoresume_jobs_fault_detection_latency_seconds_sum{source=\"log-rule\"}"),
                    1e-9,
                    after);
            // 4.7 s falls in the 5 s bucket, not the 2.5 s one
            assertEquals(
                    0.0,
                    sample(after, "autoresume_jobs_restart_latency_seconds_bucket{level=\"recover\",le=\"2.5\"}"),
                    after);
            assertEquals(
                    1.0,
                    sample(after, "autoresume_jobs_restart_latency_seconds_bucket{level=\"recover\",le=\"5.0\"}"),
                    after);
            assertEquals(
                    1.0, sample(after, "autoresume_agent_requests_total{op=\"report\",outcome=\"refused\"}"), after);
            assertEquals(6.0, sample(after, "autoresume_agent_requests_total{op=\"report\",outcome=\"ok\"}"), after);
        }
    }

    @Test
    void goodputReportsAddUpToTheCountersAndOnlyTheOwnersCount() throws Exception {
        try (HTTPServer server = metrics.serve(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            // The first attempt's end (a node fault after 180 s of kept work), then the relaunched one's.
            for (AgentReport report : List.of(
                    AgentReport.goodput(1, new AgentReport.Time(180_000, 4_000, 0, 0, 116_000, 0)),
                    AgentReport.goodput(2, new AgentReport.Time(0, 0, 11_000, 0, 0, 0)),
                    AgentReport.goodput(2, new AgentReport.Time(60_000, 0, 0, 14_250, 0, 1_500)))) {
                AgentResponse response = policy.handle(ARTEST, AgentRequest.report("6", report));
                assertTrue(response.ok(), response.message());
            }
            AgentReport forged = AgentReport.goodput(1, new AgentReport.Time(1_000_000, 0, 0, 0, 0, 0));
            assertFalse(policy.handle(MALLORY, AgentRequest.report("6", forged)).ok());

            String text = scrape(server);
            assertEquals(240.0, sample(text, "autoresume_jobs_productive_seconds_total"), 1e-9, text);
            assertEquals(4.0, sample(text, "autoresume_jobs_lost_seconds_total{cause=\"detection\"}"), 1e-9, text);
            assertEquals(11.0, sample(text, "autoresume_jobs_lost_seconds_total{cause=\"recovery\"}"), 1e-9, text);
            assertEquals(14.25, sample(text, "autoresume_jobs_lost_seconds_total{cause=\"restart\"}"), 1e-9, text);
            assertEquals(116.0, sample(text, "autoresume_jobs_lost_seconds_total{cause=\"redone\"}"), 1e-9, text);
            assertEquals(1.5, sample(text, "autoresume_jobs_unattributed_seconds_total"), 1e-9, text);
        }
    }

    @Test
    void aGoodputReportIsReadStrictly() {
        String line = "{\"op\":\"report\",\"jobId\":\"6\",\"report\":{\"event\":\"goodput\",\"attempt\":2,"
                + "\"productiveMs\":60000,\"detectionMs\":0,\"recoveryMs\":11000,\"restartMs\":14000,"
                + "\"redoneMs\":0,\"unattributedMs\":0}}";
        AgentRequest read = AgentRequest.fromJson(AgentJson.readTree(line));
        assertEquals(
                AgentRequest.report("6", AgentReport.goodput(2, new AgentReport.Time(60_000, 0, 11_000, 14_000, 0, 0))),
                read);
        assertEquals(line, AgentJson.line(read.wireForm()));
        String zeros = "\"detectionMs\":0,\"recoveryMs\":0,\"restartMs\":0,\"redoneMs\":0,\"unattributedMs\":0";
        for (String bad : List.of(
                "{\"event\":\"goodput\",\"attempt\":1}",
                "{\"event\":\"goodput\",\"attempt\":1,\"productiveMs\":5}",
                "{\"event\":\"goodput\",\"attempt\":1,\"productiveMs\":-5," + zeros + "}",
                "{\"event\":\"goodput\",\"attempt\":1,\"productiveMs\":99999999999999," + zeros + "}",
                "{\"event\":\"goodput\",\"attempt\":1,\"productiveMs\":1.5," + zeros + "}",
                "{\"event\":\"goodput\",\"attempt\":1,\"productiveMs\":0," + zeros + "}",
                "{\"event\":\"goodput\",\"attempt\":1,\"latencyMs\":5,\"productiveMs\":5," + zeros + "}",
                "{\"event\":\"goodput\",\"attempt\":1,\"productiveMs\":5,\"wastedMs\":5," + zeros + "}",
                "{\"event\":\"succeeded\",\"attempt\":1,\"productiveMs\":5," + zeros + "}")) {
            String request = "{\"op\":\"report\",\"jobId\":\"6\",\"report\":" + bad + "}";
            assertThrows(AgentRequestException.class, () -> AgentRequest.fromJson(AgentJson.readTree(request)), bad);
        }
    }

    @Test
    void theVersionAndTheAgentsOwnJvmAreScraped() throws Exception {
        metrics.describeProcess("9.8.7-test");
        try (HTTPServer server = metrics.serve(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            String text = scrape(server);
            assertEquals(
                    1.0,
                    sample(
                            text,
                            "autoresume_build_info{java_version=\"" + Runtime.version() + "\",version=\"9.8.7-test\"}"),
                    text);
            // This JVM's own heap and this process's CPU time, as any JVM dashboard reads them
            assertTrue(sample(text, "jvm_memory_used_bytes{area=\"heap\"}") > 0, text);
            assertTrue(sample(text, "process_cpu_seconds_total") > 0, text);
            assertTrue(sample(text, "jvm_threads_current") >= 1, text);
        }
    }

    @Test
    void aStepDownToItsLastRestartIsCounted() {
        metrics.record(AgentReport.of(Event.BUDGET_LOW, 3, null));
        double counted = metrics.registry().scrape().stream()
                .filter(s -> s.getMetadata().getName().equals("autoresume_jobs_restart_budget_low"))
                .flatMap(s -> s.getDataPoints().stream())
                .mapToDouble(d ->
                        ((io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot) d).getValue())
                .sum();
        assertEquals(1.0, counted);
        // The wire form a supervisor sends, read back as the agent reads it.
        String line = "{\"op\":\"report\",\"jobId\":\"6\",\"report\":{\"event\":\"budget-low\",\"attempt\":3}}";
        AgentRequest read = AgentRequest.fromJson(AgentJson.readTree(line));
        assertEquals(AgentRequest.report("6", AgentReport.of(Event.BUDGET_LOW, 3, null)), read);
        assertEquals(line, AgentJson.line(read.wireForm()));
    }

    @Test
    void ruleNamesMakeNoSeriesOfTheirOwn() {
        for (int i = 0; i < 1000; i++) {
            metrics.record(AgentReport.detection(1, 10L, "log-rule", "rule-" + i, "SLOW"));
        }
        metrics.record(AgentReport.detection(1, 10L, "checkpoint-rule", "checkpoint", "HANGING"));
        List<String> series = metrics.registry().scrape().stream()
                .filter(s -> s.getMetadata().getName().equals("autoresume_rule_violations"))
                .flatMap(s -> s.getDataPoints().stream())
                .map(d -> d.getLabels().get("kind") + "/" + d.getLabels().get("state"))
                .sorted()
                .toList();
        assertEquals(List.of("checkpoint/HANGING", "log/SLOW"), series);
        assertTrue(
                AgentMetrics.RULE_KINDS.containsAll(
                        series.stream().map(s -> s.split("/")[0]).toList()),
                series.toString());
    }

    @Test
    void aDetectionSourceOutsideTheKnownSetIsCountedAsOther() {
        for (int i = 0; i < 1000; i++) {
            metrics.record(AgentReport.detection(1, 10L, "forged-" + i, null, null));
        }
        metrics.record(AgentReport.detection(1, 10L, "slurmd-probe", null, null));
        List<String> sources = metrics.registry().scrape().stream()
                .filter(s -> s.getMetadata().getPrometheusName().startsWith("autoresume_jobs_fault_detection_latency"))
                .flatMap(s -> s.getDataPoints().stream())
                .map(p -> p.getLabels().get("source"))
                .sorted()
                .toList();
        assertEquals(List.of("other", "slurmd-probe"), sources);
    }

    @Test
    void aReportIsReadStrictlyFromTheWire() {
        AgentReport report = AgentReport.detection(2, 3_130L, "log-rule", "Loss \"spike\"", "FAULTED");
        String line = "{\"op\":\"report\",\"jobId\":\"6\",\"report\":{\"event\":\"detection\",\"attempt\":2,"
                + "\"latencyMs\":3130,\"rule\":\"Loss \\\"spike\\\"\",\"ruleState\":\"FAULTED\",\"source\":\"log-rule\"}}";
        AgentRequest read = AgentRequest.fromJson(AgentJson.readTree(line));
        assertEquals(AgentRequest.report("6", report), read);
        assertEquals(line, AgentJson.line(read.wireForm()));

        for (String bad : List.of(
                "{\"event\":\"launch\",\"attempt\":1,\"extra\":1}",
                "{\"event\":\"launch\",\"attempt\":0}",
                "{\"event\":\"launch\",\"attempt\":2}",
                "{\"event\":\"succeeded\",\"attempt\":1,\"latencyMs\":-5}",
                "{\"event\":\"replacement\",\"attempt\":1,\"latencyMs\":5}",
                "{\"event\":\"replacement\",\"attempt\":1,\"nodeCount\":5000}",
                "{\"event\":\"detection\",\"attempt\":1,\"source\":\"log-rule\",\"rule\":\"a\\nb\",\"ruleState\":\"SLOW\"}",
                "{\"event\":\"detection\",\"attempt\":1,\"source\":\"log-rule\",\"rule\":\"x\",\"ruleState\":\"HEALTHY\"}",
                "{\"event\":\"detection\",\"attempt\":1,\"source\":\"Log Rule\"}",
                "{\"event\":\"exploded\",\"attempt\":1}",
                "{\"event\":\"launch\",\"attempt\":\"1\"}")) {
            String request = "{\"op\":\"report\",\"jobId\":\"6\",\"report\":" + bad + "}";
            assertThrows(AgentRequestException.class, () -> AgentRequest.fromJson(AgentJson.readTree(request)), bad);
        }
        assertThrows(
                AgentRequestException.class,
                () -> AgentRequest.fromJson(
                        AgentJson.readTree(
                                "{\"op\":\"report\",\"jobId\":\"6\",\"nodes\":[\"node1\"],\"report\":{\"event\":\"launch\",\"attempt\":1}}")));
        assertThrows(
                AgentRequestException.class,
                () -> AgentRequest.fromJson(AgentJson.readTree(
                        "{\"op\":\"watch\",\"jobId\":\"6\",\"report\":{\"event\":\"launch\",\"attempt\":1}}")));
    }
}
