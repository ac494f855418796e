package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * The shipped Grafana dashboard against a real Prometheus scraping a real recovery (issue 19,
 * item 4): Debian's {@code prometheus} server, loaded with the shipped recording and alert rules,
 * scrapes node2's agent every second while a supervised step's node2 gets an Xid 79, is marked by
 * its agent (kernel log and GPU check) and the step moves to the spare; an ordinary user's request
 * outside its job is refused. Then every query of every panel, as the dashboard file has it, must
 * return data from Prometheus's HTTP API. promtool's test (monitoring/dashboard-queries.py) feeds
 * the series such a recovery leaves by hand; this one takes them from the agent itself, so a
 * metric or label the agent does not really export, or exports only under other conditions,
 * fails here.
 */
class DashboardLiveIT {

    private static final Duration FIRST_START = Duration.ofSeconds(300);
    private static final String PREFIX = "86-dashboard-live-it-";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static LocalCluster cluster;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.get();
    }

    @Test
    void everyPanelsQueryReturnsDataFromARecoveryScrapedByPrometheus() throws Exception {
        assertTrue(cluster.gpuRepair("node2").succeeded(), "sound GPUs to begin with");
        SupervisedSteps supervised = SupervisedSteps.start(cluster, PREFIX, "--node", "node2", "--xid-source",
                cluster.kernelLog("node2").toString(), "--gpu-check-every", "1", "--gpu-tools",
                cluster.gpuTools("node2").toString(), "--metrics-listen", "127.0.0.1:0");
        String jobId = null;
        try (Prometheus prometheus = Prometheus.start(cluster.repo(), supervised.agent().metricsUri(),
                supervised.plugstack().installDir().resolve("prometheus"))) {
            jobId = supervised.stepWithSpare(cluster, FIRST_START);
            cluster.gpuFault("node2", 79);
            Wait.until("node2's agent to mark it", Duration.ofSeconds(30), () ->
                    cluster.node("node2").state().isFail() ? Optional.of(true) : Optional.empty());
            cluster.crashTask("node2");
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            assertEquals(JobState.COMPLETED, done.state(), cluster.jobOutput(jobId));
            // A request about a node outside the user's job: the agent refuses it.
            String outside = "{\"op\":\"mark\",\"jobId\":\"" + jobId + "\",\"nodes\":[\"node4\"],\"action\":\"Replace\","
                    + "\"state\":\"fail\"}";
            CommandResult refused = cluster.runAsTestUser(List.of(cluster.launcher().toString(), "agent-call",
                    "--socket", supervised.agent().socket().toString(), outside));
            assertEquals(1, refused.exitCode(), refused.stdout() + refused.stderr());

            // Prometheus scraped all of that once the success and the refusal are in its samples.
            prometheus.awaitData("sum(autoresume_jobs_successful_total) > 0 and"
                    + " sum(autoresume_agent_requests_total{outcome=\"refused\"}) > 0", Duration.ofSeconds(30));
            List<String> empty = new ArrayList<>();
            for (JsonNode panel : JSON.readTree(cluster.repo().resolve("monitoring/grafana/autoresume-dashboard.json")
                    .toFile()).get("panels")) {
                for (JsonNode target : panel.get("targets")) {
                    String expr = target.get("expr").asText();
                    // Recording rules are evaluated every second: give each query a few rounds.
                    if (!prometheus.hasData(expr, Duration.ofSeconds(15))) {
                        empty.add(panel.get("title").asText() + " [" + target.get("refId").asText() + "]: " + expr);
                    }
                }
            }
            assertTrue(empty.isEmpty(), "dashboard queries with no data: " + empty);
            // And the numbers are this recovery's: one step restarted on replaced nodes, node2 marked.
            assertEquals(1.0, prometheus.value("sum(autoresume_jobs_restarted_total{level=\"recover\"})"), 0.0);
            assertTrue(prometheus.value("sum(autoresume_nodes_marked_total)") >= 1.0);
        } finally {
            if (jobId != null) {
                cluster.run(List.of("scancel", jobId));
            }
            cluster.gpuRepair("node2");
            cluster.run(List.of("scontrol", "update", "nodename=node2", "state=resume"));
            SupervisedSteps.stop(supervised);
        }
    }

    /** Debian's prometheus server on a free loopback port, scraping one agent every second. */
    private static final class Prometheus implements AutoCloseable {
        private final Process process;
        private final URI api;
        private final Path dir;
        private final HttpClient http = HttpClient.newHttpClient();

        private Prometheus(Process process, URI api, Path dir) {
            this.process = process;
            this.api = api;
            this.dir = dir;
        }

        static Prometheus start(Path repo, URI agentMetrics, Path dir) throws IOException, InterruptedException {
            Files.createDirectories(dir);
            int port;
            try (ServerSocket free = new ServerSocket(0)) {
                port = free.getLocalPort();
            }
            Path config = dir.resolve("prometheus.yml");
            Files.writeString(config, """
                    global:
                      scrape_interval: 1s
                      evaluation_interval: 1s
                    rule_files:
                      - %s
                    scrape_configs:
                      - job_name: autoresume-agent
                        static_configs:
                          - targets: ['%s:%d']
                    """.formatted(repo.resolve("monitoring/prometheus/autoresume.rules.yml"), agentMetrics.getHost(),
                    agentMetrics.getPort()));
            Process process = new ProcessBuilder("prometheus", "--config.file=" + config,
                    "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
                    "--log.level=warn").redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile())
                    .start();
            Prometheus prometheus = new Prometheus(process, URI.create("http://127.0.0.1:" + port), dir);
            try {
                Wait.until("prometheus to be ready on port " + port, Duration.ofSeconds(30), () -> {
                    if (!process.isAlive()) {
                        throw new AssertionError("prometheus exited: " + prometheus.log());
                    }
                    return prometheus.get("/-/ready").statusCode() == 200 ? Optional.of(true) : Optional.empty();
                });
            } catch (RuntimeException | Error e) {
                prometheus.close();
                throw e;
            }
            return prometheus;
        }

        /** The instant query's result vector (empty when the query returns no series). */
        JsonNode query(String expr) {
            HttpResponse<String> response = get("/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8));
            try {
                JsonNode body = JSON.readTree(response.body());
                assertEquals("success", body.path("status").asText(), expr + ": " + response.body());
                return body.get("data").get("result");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        boolean hasData(String expr, Duration within) {
            try {
                awaitData(expr, within);
                return true;
            } catch (AssertionError e) {
                return false;
            }
        }

        void awaitData(String expr, Duration within) {
            Wait.until("data for " + expr, within, () -> query(expr).isEmpty() ? Optional.empty() : Optional.of(true));
        }

        /** The value of a query that returns one series. */
        double value(String expr) {
            JsonNode result = query(expr);
            assertEquals(1, result.size(), expr + ": " + result);
            return Double.parseDouble(result.get(0).get("value").get(1).asText());
        }

        private HttpResponse<String> get(String path) {
            try {
                return http.send(HttpRequest.newBuilder(api.resolve(path)).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while asking prometheus " + path, e);
            }
        }

        private String log() {
            try {
                return Files.readString(dir.resolve("prometheus.log"));
            } catch (IOException e) {
                return "(no log: " + e.getMessage() + ")";
            }
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
