package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.probe.LivenessProber;

/**
 * Fair under load: the ordinary test user opens far more connections to the real
 * agent than its per-user share and sends nothing on them; the connections over the share are
 * refused with an answer, and meanwhile root's request about the user's running job is answered
 * within the agent client's normal timeout, as if nobody flooded. And a flood of another kind:
 * reports about the user's own job, each naming a new rule and a new detection source, which
 * must not multiply the agent's metric series (their labels take fixed sets of values). And on
 * the liveness port, which any user may connect to: a user's connections kept open and asking
 * again are kept only up to the port's bound per peer, and a supervisor's probe is still answered.
 */
class AgentFloodIT {

    private static final int FLOOD = 300;
    /** The agent's per-uid share (AgentServer.CONNECTIONS_PER_UID). */
    private static final int SHARE = 32;

    /** The liveness port's bound of connections it keeps from one peer address (LivenessListener.HELD_PER_PEER). */
    private static final int KEPT_PER_PEER = 8;

    private static LocalCluster cluster;
    private static LocalAgent agent;

    @BeforeAll
    static void startAgent() {
        cluster = LocalCluster.get();
        agent = LocalAgent.start(
                cluster,
                cluster.clusterDir()
                        .resolve("agent-flood-it-" + ProcessHandle.current().pid()),
                "--metrics-listen",
                "127.0.0.1:0");
    }

    @AfterAll
    static void stopAgent() throws InterruptedException {
        if (agent != null) {
            agent.stop();
        }
    }

    @Test
    void aUsersFloodIsRefusedOverItsShareAndRootIsStillAnswered() throws Exception {
        String jobId = cluster.submit("#!/bin/bash\nsleep 300\n", List.of("-N1", "-J", "agent-flood-it"));
        Process flood = null;
        try {
            Job job = cluster.waitForJob(
                    jobId,
                    "to run",
                    Duration.ofSeconds(300),
                    j -> j.state() == JobState.RUNNING && !j.nodeList().isBlank());
            String node = Hostlist.expand(job.nodeList()).get(0);

            flood = startFloodAsTestUser();
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(flood.getInputStream(), StandardCharsets.UTF_8));
            String counts = out.readLine();
            assertNotNull(counts, "the flooding client said nothing");
            System.out.println("the test user's " + FLOOD + " connections: " + counts);
            Matcher m =
                    Pattern.compile("refused=(\\d+) held=(\\d+) closed=(\\d+)").matcher(counts);
            assertTrue(m.matches(), counts);
            int refused = Integer.parseInt(m.group(1));
            int held = Integer.parseInt(m.group(2));
            int closed = Integer.parseInt(m.group(3));
            assertEquals(FLOOD, refused + held + closed, counts);
            assertTrue(held <= SHARE, "the agent held more than one user's share: " + counts);
            // Every connection over the share got the refusal, apart from places that the read
            // deadline gave back while the client was still opening (then "closed").
            assertTrue(refused >= FLOOD - SHARE - closed, counts);
            assertTrue(refused >= FLOOD / 2, counts);

            // While the flood holds its share: root's request about the user's job, through
            // agent-call with the client's normal timeout (it fails when no answer comes in time).
            CommandResult answer = cluster.run(List.of(
                    cluster.launcher().toString(),
                    "agent-call",
                    "--socket",
                    agent.socket().toString(),
                    "{\"op\":\"diagnose\",\"jobId\":\"" + jobId + "\",\"nodes\":[\"" + node + "\"]}"));
            assertEquals(0, answer.exitCode(), answer.stdout() + answer.stderr());
            assertTrue(answer.stdout().contains("\"decision\":\"healthy\""), answer.stdout());
            assertTrue(flood.isAlive(), "the flood ended before root asked");
        } finally {
            if (flood != null) {
                flood.getOutputStream().close();
                if (!flood.waitFor(30, TimeUnit.SECONDS)) {
                    flood.destroyForcibly();
                }
            }
            cluster.run(List.of("scancel", jobId));
        }
    }

    /**
     * Metrics labels only from fixed sets: the test user's own job is entitled to
     * report its detections, so the agent accepts each of the reports, every one with a rule name
     * and a detection source never seen before. The scrape afterwards holds no series with any of
     * those words: rule violations are counted by kind and state, detections by the known sources
     * or "other". The user's job is still answered.
     */
    @Test
    void aUsersReportsWithEverNewRuleNamesMakeNoNewSeries() throws Exception {
        final int reports = 300;
        String jobId = cluster.submit("#!/bin/bash\nsleep 300\n", List.of("-N1", "-J", "agent-label-flood-it"));
        try {
            Job job = cluster.waitForJob(
                    jobId,
                    "to run",
                    Duration.ofSeconds(300),
                    j -> j.state() == JobState.RUNNING && !j.nodeList().isBlank());
            String before = agent.scrapeMetrics();
            String sender = String.join(
                    "\n",
                    "import json, socket, sys",
                    "path, job, n = sys.argv[1], sys.argv[2], int(sys.argv[3])",
                    "ok = 0",
                    "for i in range(n):",
                    "    report = {'event': 'detection', 'attempt': 1, 'latencyMs': 10, 'rule': 'flood-rule-%d' % i,",
                    "              'ruleState': 'SLOW', 'source': 'flood-source-%d' % i}",
                    "    s = socket.socket(socket.AF_UNIX)",
                    "    s.connect(path)",
                    "    s.sendall((json.dumps({'op': 'report', 'jobId': job, 'report': report}) + '\\n').encode())",
                    "    answer = s.makefile().readline()",
                    "    s.close()",
                    "    ok += json.loads(answer).get('ok') is True",
                    "print(ok)");
            CommandResult sent = cluster.runAsTestUser(
                    List.of("python3", "-c", sender, agent.socket().toString(), jobId, String.valueOf(reports)));
            assertEquals(0, sent.exitCode(), sent.stdout() + sent.stderr());
            assertEquals(
                    String.valueOf(reports), sent.stdout().strip(), "reports the agent accepted: " + sent.stderr());

            String after = agent.scrapeMetrics();
            String accepted = "autoresume_agent_requests_total{op=\"report\",outcome=\"ok\"}";
            assertEquals(
                    reports, LocalAgent.sample(after, accepted) - LocalAgent.sample(before, accepted), 1e-9, after);
            assertFalse(after.contains("flood-"), "a user's word became a label:\n" + after);
            List<String> violations = after.lines()
                    .filter(l -> l.startsWith("autoresume_rule_violations_total{"))
                    .toList();
            assertEquals(
                    List.of("autoresume_rule_violations_total{kind=\"log\",state=\"SLOW\"} " + (double) reports),
                    violations,
                    after);
            assertEquals(
                    reports,
                    LocalAgent.sample(after, "autoresume_jobs_fault_detection_latency_seconds_count{source=\"other\"}"),
                    1e-9,
                    after);

            String node = Hostlist.expand(job.nodeList()).get(0);
            CommandResult answer = cluster.run(List.of(
                    cluster.launcher().toString(),
                    "agent-call",
                    "--socket",
                    agent.socket().toString(),
                    "{\"op\":\"diagnose\",\"jobId\":\"" + jobId + "\",\"nodes\":[\"" + node + "\"]}"));
            assertEquals(0, answer.exitCode(), answer.stdout() + answer.stderr());
            assertTrue(answer.stdout().contains("\"decision\":\"healthy\""), answer.stdout());
        } finally {
            cluster.run(List.of("scancel", jobId));
        }
    }

    /**
     * One line per decision, user text escaped: the test user sends requests
     * whose node name, field name and rule name hold line breaks followed by a line of their own
     * making. The agent refuses each (it audits them as JSON) and its human log quotes the words
     * escaped: no line of that log starts with the user's text.
     */
    @Test
    void aUsersLineBreaksStayInsideTheAgentsLogLine() throws Exception {
        String sender = String.join(
                "\n",
                "import json, socket, sys",
                "forged = 'FORGED-BY-USER agent: marked node9 fail'",
                "requests = [{'op': 'diagnose', 'jobId': '1', 'nodes': ['node1\\n' + forged]},",
                "            {'op': 'watch', 'jobId': '1', 'x\\r\\n' + forged: 1},",
                "            {'op': 'report', 'jobId': '1', 'report': {'event': 'detection', 'attempt': 1,",
                "             'source': 'log-rule', 'rule': 'r\\u0007\\u2028' + forged, 'ruleState': 'SLOW'}}]",
                "for r in requests:",
                "    s = socket.socket(socket.AF_UNIX)",
                "    s.connect(sys.argv[1])",
                "    s.sendall((json.dumps(r) + '\\n').encode())",
                "    print(json.loads(s.makefile().readline()).get('ok'))",
                "    s.close()");
        CommandResult sent = cluster.runAsTestUser(
                List.of("python3", "-c", sender, agent.socket().toString()));
        assertEquals(0, sent.exitCode(), sent.stdout() + sent.stderr());
        assertEquals(List.of("False", "False", "False"), sent.stdout().lines().toList(), "each request refused");
        String log = Wait.until("the agent to log the three refusals", Duration.ofSeconds(10), () -> {
            String now = LocalAgent.read(agent.log());
            return now.split("FORGED-BY-USER", -1).length > 3 ? Optional.of(now) : Optional.empty();
        });
        assertEquals(
                List.of(),
                log.lines().filter(l -> l.startsWith("FORGED-BY-USER")).toList(),
                log);
        assertTrue(log.contains("\\nFORGED-BY-USER"), log);
    }

    /**
     * A flood of the fresh-check port: the test user connects 300 times in 6 s to node1's, each
     * connection asking node1's agent to run its GPU checks now. The askers share rounds: the
     * checks run at most once per 2 s (NodeCheckWatch.ASK_GAP) however many ask, every asker
     * within the bound is answered, and node1, whose GPUs are sound, is not marked.
     */
    @Test
    void aFloodOfFreshCheckAsksRunsTheChecksAtMostOncePerGap() throws Exception {
        assertTrue(cluster.gpuRepair("node1").succeeded(), "sound GPUs to begin with");
        LocalAgent node1 = LocalAgent.start(
                cluster,
                cluster.clusterDir()
                        .resolve("agent-flood-it-fresh-"
                                + ProcessHandle.current().pid()),
                "--node",
                "node1",
                "--xid-source",
                "off",
                "--gpu-check-every",
                "600",
                "--gpu-tools",
                cluster.gpuTools("node1").toString(),
                "--metrics-listen",
                "127.0.0.1:0");
        try {
            String rounds = "autoresume_agent_gpu_checks_total{check=\"gpu\",result=\"passed\"}";
            double before = Wait.until("node1's agent's first round", Duration.ofSeconds(30), () -> {
                double done = LocalAgent.sample(node1.scrapeMetrics(), rounds);
                return done >= 1 ? Optional.of(done) : Optional.empty();
            });
            org.slurmautoresume.slurm.model.Node record = cluster.node("node1");
            int port = org.slurmautoresume.slurm.probe.LivenessProber.port(
                    org.slurmautoresume.slurm.probe.LivenessProber.DEFAULT_CHECK_PORT, record);
            String asker = String.join(
                    "\n",
                    "import socket, sys, threading, time",
                    "host, port, n, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])",
                    "said = {}",
                    "lock = threading.Lock()",
                    "def ask():",
                    "    try:",
                    "        s = socket.create_connection((host, port), timeout=5)",
                    "        s.settimeout(5)",
                    "        line = s.makefile().readline().strip()",
                    "        s.close()",
                    "    except OSError:",
                    "        line = ''",
                    "    word = line.split()[-1] if line.startswith('autoresume-agent 1 node1 ') else 'none'",
                    "    with lock:",
                    "        said[word] = said.get(word, 0) + 1",
                    "start = time.time()",
                    "threads = []",
                    "for i in range(n):",
                    "    t = threading.Thread(target=ask)",
                    "    t.start()",
                    "    threads.append(t)",
                    "    time.sleep(seconds / n)",
                    "for t in threads:",
                    "    t.join()",
                    "print('ok=%d other=%d seconds=%.1f' % (said.get('ok', 0), n - said.get('ok', 0), time.time() - start))");
            CommandResult sent = cluster.runAsTestUser(
                    List.of("python3", "-c", asker, record.address(), String.valueOf(port), "300", "6"));
            assertEquals(0, sent.exitCode(), sent.stdout() + sent.stderr());
            Matcher m = Pattern.compile("ok=(\\d+) other=(\\d+) seconds=([0-9.]+)")
                    .matcher(sent.stdout().strip());
            assertTrue(m.matches(), sent.stdout());
            assertEquals(300, Integer.parseInt(m.group(1)), "every asker answered ok: " + sent.stdout());
            double ran = LocalAgent.sample(node1.scrapeMetrics(), rounds) - before;
            double seconds = Double.parseDouble(m.group(3));
            long bound = (long) Math.ceil(seconds / 2) + 1;
            System.out.printf(
                    "300 fresh-check asks in %.1f s ran node1's checks %.0f times (bound %d)%n", seconds, ran, bound);
            assertTrue(ran >= 1 && ran <= bound, "rounds run for the flood: " + ran + ", at most " + bound);
            assertFalse(
                    cluster.node("node1").state().isFail(),
                    cluster.node("node1").state().display());
        } finally {
            node1.stop();
        }
    }

    /** The client's class, copied where the test user can read it, run in a JVM as that user. */
    @Test
    void aUsersConnectionsKeptOnTheLivenessPortAreBoundedAndProbesAreStillAnswered() throws Exception {
        LocalAgent node2Agent = LocalAgent.start(
                cluster,
                cluster.clusterDir()
                        .resolve("agent-flood-liveness-it-"
                                + ProcessHandle.current().pid()),
                "--node",
                "node2");
        Process holder = null;
        try (LivenessProber prober = new LivenessProber(
                Duration.ofSeconds(2), LivenessProber.DEFAULT_PORT, true, n -> Optional.of("no agent answers"))) {
            Node node2 = cluster.node("node2");
            int port = LivenessProber.port(LivenessProber.DEFAULT_PORT, node2);
            Wait.until(
                    "node2's agent to answer liveness probes",
                    Duration.ofSeconds(30),
                    () -> prober.unreachable(node2).isEmpty() ? Optional.of(true) : Optional.empty());
            prober.close(); // the user's connections come first: every place from this address is theirs to take
            String script = String.join(
                    "\n",
                    "import signal, socket, sys",
                    "signal.alarm(300)",
                    "host, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])",
                    "peers = []",
                    "for _ in range(count):",
                    "    s = socket.create_connection((host, port), timeout=5)",
                    "    f = s.makefile('rb')",
                    "    if f.readline().startswith(b'autoresume-agent 1 '):",
                    "        peers.append((s, f))",
                    "kept = 0",
                    "for s, f in peers:",
                    "    try:",
                    "        s.sendall(b'?')",
                    "        kept += f.readline().startswith(b'autoresume-agent 1 ')",
                    "    except OSError:",
                    "        pass",
                    "print('greeted=%d kept=%d' % (len(peers), kept), flush=True)",
                    "sys.stdin.readline()");
            holder = new ProcessBuilder(cluster.asTestUser(List.of(
                            "python3", "-c", script, node2.address(), Integer.toString(port), Integer.toString(FLOOD))))
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            String counts = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            assertNotNull(counts, "the holding client said nothing");
            Matcher m = Pattern.compile("greeted=(\\d+) kept=(\\d+)").matcher(counts);
            assertTrue(m.matches(), counts);
            assertEquals(FLOOD, Integer.parseInt(m.group(1)), "every connection was greeted: " + counts);
            assertEquals(KEPT_PER_PEER, Integer.parseInt(m.group(2)), "kept, and answered again: " + counts);

            // While the user holds the places: the supervisor's probes are answered, each on a new connection.
            for (int i = 0; i < 5; i++) {
                assertEquals(Optional.empty(), prober.unreachable(node2), "probe " + i);
                assertTrue(prober.speaksForItsNode(node2));
            }
            assertTrue(holder.isAlive(), "the user's connections ended before the probes");
        } finally {
            if (holder != null) {
                holder.getOutputStream().close();
                if (!holder.waitFor(30, TimeUnit.SECONDS)) {
                    holder.destroyForcibly();
                }
            }
            node2Agent.stop();
        }
    }

    private static Process startFloodAsTestUser() throws IOException {
        Path classes = agent.socket().getParent().resolve("flood-classes");
        Path pkg = classes.resolve("org/slurmautoresume/e2e");
        Files.createDirectories(pkg);
        Path source = Path.of(FloodingClient.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .getPath())
                .resolve("org/slurmautoresume/e2e/FloodingClient.class");
        Files.copy(source, pkg.resolve("FloodingClient.class"), StandardCopyOption.REPLACE_EXISTING);
        for (Path p : List.of(classes, classes.resolve("org"), classes.resolve("org/slurmautoresume"), pkg)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Files.setPosixFilePermissions(
                pkg.resolve("FloodingClient.class"), PosixFilePermissions.fromString("rw-r--r--"));
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> argv = new ArrayList<>(List.of(
                java,
                "-XX:+UseSerialGC",
                "-cp",
                classes.toString(),
                FloodingClient.class.getName(),
                agent.socket().toString(),
                String.valueOf(FLOOD)));
        ProcessBuilder builder = new ProcessBuilder(cluster.asTestUser(argv));
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        return builder.start();
    }
}
