package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slurmautoresume.agent.protocol.AgentJson;
import org.slurmautoresume.slurm.exec.CommandResult;

/** The real `autoresume agent`, started as root (the tests' user) in a directory of its own. */
final class LocalAgent {

    private final Path dir;
    private final Process process;
    private final List<String> options;

    private LocalAgent(Path dir, Process process, List<String> options) {
        this.dir = dir;
        this.process = process;
        this.options = List.copyOf(options);
    }

    /** Starts it on {@code dir/agent.sock} with its audit log beside, and waits until it listens. */
    static LocalAgent start(LocalCluster cluster, Path dir, String... moreOptions) {
        try {
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            // Every signal at its default, as systemd starts the agent: a suite started under
            // nohup (SIGHUP ignored) would otherwise hand that on, and the JVM installs no handler
            // for a SIGHUP it was started ignoring, so logrotate's SIGHUP would reopen nothing.
            // env execs the launcher, which execs java: the process keeps its pid.
            List<String> argv = new ArrayList<>(List.of(
                    "env",
                    "--default-signal",
                    cluster.launcher().toString(),
                    "agent",
                    "--socket",
                    dir.resolve("agent.sock").toString(),
                    "--audit-log",
                    dir.resolve("audit.log").toString(),
                    "--state-dir",
                    dir.resolve("state").toString()));
            if (!List.of(moreOptions).contains("--lemon-policy")) {
                // Off unless a test turns it on: the tests mark the cluster's nodes many times a day,
                // and a node would soon be held as a lemon instead of resumed (LemonIT tests the rule).
                argv.addAll(List.of(
                        "--lemon-policy",
                        Files.writeString(dir.resolve("lemon-off.yaml"), "lemonMarks: 0\n")
                                .toString()));
            }
            argv.addAll(List.of(moreOptions));
            ProcessBuilder builder = new ProcessBuilder(argv);
            builder.environment().put("AUTORESUME_LOG_LEVEL", "INFO");
            builder.redirectErrorStream(true);
            // Appended: an agent started again on the same directory keeps the first one's log.
            builder.redirectOutput(
                    ProcessBuilder.Redirect.appendTo(dir.resolve("agent.log").toFile()));
            LocalAgent agent = new LocalAgent(dir, builder.start(), List.of(moreOptions));
            Wait.until("the agent to listen on " + agent.socket(), Duration.ofSeconds(30), () -> {
                if (!agent.process.isAlive()) {
                    throw new AssertionError("the agent exited: " + read(dir.resolve("agent.log")));
                }
                return Files.exists(agent.socket()) ? Optional.of(true) : Optional.empty();
            });
            return agent;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Scrapes the agent's /metrics over HTTP (the agent must run with {@code --metrics-listen});
     * the address is the one the agent printed when it started.
     */
    String scrapeMetrics() {
        URI metrics = metricsUri();
        try {
            HttpResponse<String> response = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(metrics)
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while scraping " + metrics, e);
        }
    }

    /** Where the agent serves /metrics, as it printed when it started ({@code --metrics-listen}). */
    URI metricsUri() {
        // Its socket, which start() waited for, is bound just before the agent prints its start-up line.
        Pattern serving = Pattern.compile("metrics on (http://\\S+/metrics)");
        Matcher m = Wait.until("the agent to say where it serves metrics", Duration.ofSeconds(10), () -> {
            Matcher found = serving.matcher(read(dir.resolve("agent.log")));
            return found.find() ? Optional.of(found) : Optional.empty();
        });
        return URI.create(m.group(1));
    }

    /** One sample of a scrape, {@code name{labels}} as written; 0 when the series is not there yet. */
    static double sample(String scrape, String series) {
        Matcher m =
                Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(scrape);
        return m.find() ? Double.parseDouble(m.group(1)) : 0.0;
    }

    Path socket() {
        return dir.resolve("agent.sock");
    }

    Path auditLog() {
        return dir.resolve("audit.log");
    }

    /**
     * One request to the agent as the ordinary test user ({@code autoresume agent-call}); its
     * answer as JSON, whose {@code ok} must agree with the call's exit status.
     */
    JsonNode callAsTestUser(LocalCluster cluster, String request) {
        CommandResult result = cluster.runAsTestUser(
                List.of(cluster.launcher().toString(), "agent-call", "--socket", socket().toString(), request));
        String line = result.stdout().strip();
        assertFalse(line.isEmpty(), "no answer: " + result.stderr());
        JsonNode answer = AgentJson.readTree(line.lines().reduce((a, b) -> b).orElseThrow());
        assertEquals(answer.get("ok").asBoolean() ? 0 : 1, result.exitCode(), line + result.stderr());
        return answer;
    }

    /** A request's JSON: {@code op} for {@code jobId} on {@code node}, with {@code extra} fields (",..." or ""). */
    static String request(String op, String jobId, String node, String extra) {
        return "{\"op\":\"" + op + "\",\"jobId\":\"" + jobId + "\",\"nodes\":[\"" + node + "\"]" + extra + "}";
    }

    /** A {@code mark} of {@code node} with Action:Replace, {@code state} fail or down. */
    static String mark(String jobId, String node, String state) {
        return request("mark", jobId, node, ",\"action\":\"Replace\",\"state\":\"" + state + "\"");
    }

    /** What the agent wrote to its standard output and error (its human log, INFO and up). */
    Path log() {
        return dir.resolve("agent.log");
    }

    /**
     * SIGTERM, as systemd stops it; it must remove its socket. Then its directory goes too. An
     * agent SIGKILLed with its node ({@code kill-node}) between the caller's {@link #isAlive} and
     * this had no chance to, and exits 137: its socket is not held against it.
     */
    void stop() throws InterruptedException {
        process.destroy();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the agent did not stop on SIGTERM");
        if (process.exitValue() != KILLED) {
            assertFalse(
                    Files.exists(socket()),
                    "the agent left its socket behind (exit " + process.exitValue() + "); its log:\n" + read(log()));
        }
        removeDirectory();
    }

    /** 128 + SIGKILL. */
    private static final int KILLED = 137;

    /** Sends the agent a signal by name ({@code HUP}, {@code USR2}), as an operator's logrotate does. */
    void signal(LocalCluster cluster, String name) {
        CommandResult sent = cluster.run(List.of("kill", "-s", name, Long.toString(process.pid())));
        assertTrue(sent.succeeded(), sent.stderr());
    }

    /** Whether the agent still runs: {@code kill-node} kills the agent bound to the node with the rest of it. */
    boolean isAlive() {
        return process.isAlive();
    }

    /** After the agent was killed with its node (it had no chance to remove its socket): its directory goes. */
    void removeAfterDeath() throws InterruptedException {
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the agent is still running");
        removeDirectory();
    }

    private void removeDirectory() {
        try (var files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * SIGTERM, as {@code systemctl stop} (or the first half of a restart) sends: the socket goes,
     * the directory with the agent's state (its ledger of marks) and logs stays.
     */
    void stopKeepingState() throws InterruptedException {
        process.destroy();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the agent did not stop on SIGTERM");
        assertFalse(Files.exists(socket()), "the agent left its socket behind");
    }

    /** The same agent started again on its directory, as {@code systemctl start} does after a stop. */
    LocalAgent startAgain(LocalCluster cluster) {
        assertFalse(process.isAlive(), "stop it first");
        return start(cluster, dir, options.toArray(String[]::new));
    }

    static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
