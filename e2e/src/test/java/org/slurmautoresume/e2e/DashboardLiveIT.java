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
 * The shipped Grafana dashboard against a real Prometheus scraping a real recovery:
 * Debian's {@code prometheus} server, loaded with the shipped recording and alert rules,
 * scrapes node2's agent every second while a supervised step's node2 gets an Xid 79, is marked by
 * its agent (kernel log and GPU check) and the step moves to the spare; an ordinary user's request
 * outside its job is refused; a sweep pass writes its textfile, which Debian's
 * {@code prometheus-node-exporter} serves as the controller's would. Then every query of every panel, as the dashboard file has it, must
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
        SupervisedSteps supervised = SupervisedSteps.start(
                cluster,
                PREFIX,
                "--node",
                "node2",
                "--xid-source",
                cluster.kernelLog("node2").toString(),
                "--gpu-check-every",
                "1",
                "--gpu-tools",
                cluster.gpuTools("node2").toString(),
                "--metrics-listen",
                "127.0.0.1:0");
        String jobId = null;
        Path dir = supervised.plugstack().installDir();
        Path textfiles = Files.createDirectories(dir.resolve("textfiles"));
        try (Daemon nodeExporter = Daemon.start(
                        dir.resolve("node-exporter.log"),
                        port -> List.of(
                                "prometheus-node-exporter",
                                "--collector.disable-defaults",
                                "--collector.textfile",
                                "--collector.textfile.directory=" + textfiles,
                                "--web.listen-address=127.0.0.1:" + port),
                        "/metrics");
                Prometheus prometheus = Prometheus.start(
                        cluster.repo(),
                        supervised.agent().metricsUri(),
                        nodeExporter.port(),
                        dir.resolve("prometheus"))) {
            // One sweep pass into node_exporter's textfile directory, as the controller's timer runs it;
            // caps at 0% of any partition so that it changes no node of this cluster.
            Path policy = Files.writeString(dir.resolve("sweep-policy.yaml"), "maxPartitionPercent: 0\n");
            CommandResult swept = cluster.run(List.of(
                    cluster.launcher().toString(),
                    "sweep",
                    "--policy",
                    policy.toString(),
                    "--lock",
                    dir.resolve("sweep.lock").toString(),
                    "--textfile",
                    textfiles.resolve("autoresume_sweep.prom").toString()));
            assertTrue(Files.exists(textfiles.resolve("autoresume_sweep.prom")), swept.stdout() + swept.stderr());
            jobId = supervised.stepWithSpare(cluster, FIRST_START);
            cluster.gpuFault("node2", 79);
            Wait.until(
                    "node2's agent to mark it",
                    Duration.ofSeconds(30),
                    () -> cluster.node("node2").state().isFail() ? Optional.of(true) : Optional.empty());
            cluster.crashTask("node2");
            Job done = cluster.waitForJobEnd(jobId, Duration.ofSeconds(180));
            assertEquals(JobState.COMPLETED, done.state(), cluster.jobOutput(jobId));
            // A request about a node outside the user's job: the agent refuses it.
            String outside = "{\"op\":\"mark\",\"jobId\":\"" + jobId
                    + "\",\"nodes\":[\"node4\"],\"action\":\"Replace\"," + "\"state\":\"fail\"}";
            CommandResult refused = cluster.runAsTestUser(List.of(
                    cluster.launcher().toString(),
                    "agent-call",
                    "--socket",
                    supervised.agent().socket().toString(),
                    outside));
            assertEquals(1, refused.exitCode(), refused.stdout() + refused.stderr());

            // Prometheus scraped all of that once the success and the refusal are in its samples.
            prometheus.awaitData(
                    "sum(autoresume_jobs_successful_total) > 0 and"
                            + " sum(autoresume_agent_requests_total{outcome=\"refused\"}) > 0",
                    Duration.ofSeconds(30));
            List<String> empty = new ArrayList<>();
            for (JsonNode panel : JSON.readTree(cluster.repo()
                            .resolve("monitoring/grafana/autoresume-dashboard.json")
                            .toFile())
                    .get("panels")) {
                for (JsonNode target : panel.get("targets")) {
                    String expr = target.get("expr").asText();
                    // Recording rules are evaluated every second: give each query a few rounds.
                    if (!prometheus.hasData(expr, Duration.ofSeconds(15))) {
                        empty.add(panel.get("title").asText() + " ["
                                + target.get("refId").asText() + "]: " + expr);
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

    /** A daemon on a free loopback port (its argv made from the port), ready once {@code readyPath} answers 200. */
    private static final class Daemon implements AutoCloseable {
        private final Process process;
        private final int port;
        private final Path log;
        private final HttpClient http = HttpClient.newHttpClient();

        private Daemon(Process process, int port, Path log) {
            this.process = process;
            this.port = port;
            this.log = log;
        }

        static Daemon start(Path log, java.util.function.IntFunction<List<String>> argv, String readyPath)
                throws IOException, InterruptedException {
            int port;
            try (ServerSocket free = new ServerSocket(0)) {
                port = free.getLocalPort();
            }
            List<String> command = argv.apply(port);
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            Daemon daemon = new Daemon(process, port, log);
            try {
                Wait.until(command.get(0) + " to answer on port " + port, Duration.ofSeconds(30), () -> {
                    if (!process.isAlive()) {
                        throw new AssertionError(command.get(0) + " exited: " + daemon.log());
                    }
                    return daemon.get(readyPath).map(r -> r.statusCode() == 200).orElse(false)
                            ? Optional.of(true)
                            : Optional.empty();
                });
            } catch (RuntimeException | Error e) {
                daemon.close();
                throw e;
            }
            return daemon;
        }

        int port() {
            return port;
        }

        URI uri(String path) {
            return URI.create("http://127.0.0.1:" + port + path);
        }

        /** The answer to a GET, or none while the daemon does not accept connections yet. */
        Optional<HttpResponse<String>> get(String path) {
            try {
                return Optional.of(http.send(
                        HttpRequest.newBuilder(uri(path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString()));
            } catch (java.net.ConnectException e) {
                return Optional.empty();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while asking " + uri(path), e);
            }
        }

        String log() {
            try {
                return Files.readString(log);
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

    /**
     * Debian's prometheus server on a free loopback port with the shipped rules, scraping one agent
     * (job autoresume-agent) and node_exporter (job node) every second.
     */
    private static final class Prometheus implements AutoCloseable {
        private final Daemon daemon;

        private Prometheus(Daemon daemon) {
            this.daemon = daemon;
        }

        static Prometheus start(Path repo, URI agentMetrics, int nodeExporterPort, Path dir)
                throws IOException, InterruptedException {
            Files.createDirectories(dir);
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
                      - job_name: node
                        static_configs:
                          - targets: ['127.0.0.1:%d']
                    """.formatted(
                            repo.resolve("monitoring/prometheus/autoresume.rules.yml"),
                            agentMetrics.getHost(),
                            agentMetrics.getPort(),
                            nodeExporterPort));
            return new Prometheus(Daemon.start(
                    dir.resolve("prometheus.log"),
                    port -> List.of(
                            "prometheus",
                            "--config.file=" + config,
                            "--storage.tsdb.path=" + dir.resolve("data"),
                            "--web.listen-address=127.0.0.1:" + port,
                            "--log.level=warn"),
                    "/-/ready"));
        }

        /** The instant query's result vector (empty when the query returns no series). */
        JsonNode query(String expr) {
            HttpResponse<String> response = daemon.get(
                            "/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8))
                    .orElseThrow(() -> new AssertionError("prometheus stopped answering: " + daemon.log()));
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

        @Override
        public void close() throws InterruptedException {
            daemon.close();
        }
    }
}
