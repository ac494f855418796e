package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.agent.protocol.AgentJson;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * The site's health command under a burst of one user's requests, on the real cluster: the
 * ordinary test user, whose job holds a node, sends rounds of concurrent {@code diagnose}
 * requests for it to an agent started as the packages start it (its default sharing). The
 * command, run as root, counts its runs, how many ran at once and what it was told; it prints
 * secret-looking words on stdout and stderr and fails (exit 8, reboot). Root runs it one at a
 * time, far fewer times than asked, each run told it is on a request, and no answer carries a
 * word the command printed.
 */
class OnDemandHealthIT {

    private static final String STDOUT_SECRET = "STDOUT-SECRET-d41d8cd9";
    private static final String STDERR_SECRET = "STDERR-SECRET-8f00b204";
    private static final int AT_ONCE = 12;
    private static final int ROUNDS = 4;

    private static LocalCluster cluster;
    private static LocalAgent agent;
    private static Path counts;

    @BeforeAll
    static void startAgent() throws IOException {
        cluster = LocalCluster.get();
        counts = Files.createTempDirectory(cluster.clusterDir(), "on-demand-health-it-");
        Path check = counts.resolve("check.sh");
        Files.writeString(
                check,
                String.join(
                        "\n",
                        "#!/bin/bash",
                        "d='" + counts + "'",
                        "echo \"${AUTORESUME_CHECK:-unset}\" >> \"$d/told\"",
                        "mkdir \"$d/running.$$\"",
                        "ls -d \"$d\"/running.* | wc -l >> \"$d/at-once\"",
                        "echo \"$1\" >> \"$d/runs\"",
                        "echo '" + STDOUT_SECRET + " GPU 0 used by pid 4242'",
                        "echo 'Xid 79 " + STDERR_SECRET + "' >&2",
                        "sleep 1",
                        "rmdir \"$d/running.$$\"",
                        "exit 8",
                        ""));
        Files.setPosixFilePermissions(check, PosixFilePermissions.fromString("rwxr-xr-x"));
        agent = LocalAgent.start(
                cluster,
                cluster.clusterDir()
                        .resolve(
                                "on-demand-health-it-" + ProcessHandle.current().pid()),
                "--health-command",
                check.toString());
    }

    @AfterAll
    static void stopAgent() throws InterruptedException, IOException {
        if (agent != null) {
            agent.stop();
        }
        if (counts != null) {
            try (var files = Files.walk(counts)) {
                for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    private static List<String> lines(String name) throws IOException {
        Path file = counts.resolve(name);
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    @Test
    void aBurstOfOneUsersDiagnosesRunsTheCommandOnceAtATimeAndReturnsNoneOfItsOutput() throws Exception {
        String jobId = cluster.submit("#!/bin/bash\nsleep 300\n", List.of("-N1", "-J", "on-demand-health-it"));
        try {
            Job job = cluster.waitForJob(
                    jobId,
                    "to run",
                    Duration.ofSeconds(300),
                    j -> j.state() == JobState.RUNNING && !j.nodeList().isBlank());
            String node = Hostlist.expand(job.nodeList()).get(0);
            String sender = String.join(
                    "\n",
                    "import json, socket, sys, threading, time",
                    "path, job, node, at_once, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]),"
                            + " int(sys.argv[5])",
                    "answers = []",
                    "lock = threading.Lock()",
                    "def ask():",
                    "    s = socket.socket(socket.AF_UNIX)",
                    "    s.settimeout(120)",
                    "    s.connect(path)",
                    "    s.sendall((json.dumps({'op': 'diagnose', 'jobId': job, 'nodes': [node]}) + '\\n').encode())",
                    "    line = s.makefile().readline()",
                    "    s.close()",
                    "    with lock:",
                    "        answers.append(line.strip())",
                    "start = time.time()",
                    "for r in range(rounds):",
                    "    threads = [threading.Thread(target=ask) for i in range(at_once)]",
                    "    for t in threads:",
                    "        t.start()",
                    "    for t in threads:",
                    "        t.join()",
                    "print('%.1f' % (time.time() - start))",
                    "for a in answers:",
                    "    print(a)");
            CommandResult sent = cluster.runAsTestUser(new CommandRequest(
                    List.of(
                            "python3",
                            "-c",
                            sender,
                            agent.socket().toString(),
                            jobId,
                            node,
                            String.valueOf(AT_ONCE),
                            String.valueOf(ROUNDS)),
                    Duration.ofSeconds(300),
                    java.util.Map.of()));
            assertEquals(0, sent.exitCode(), sent.stdout() + sent.stderr());
            List<String> out = sent.stdout().lines().toList();
            double seconds = Double.parseDouble(out.get(0));
            List<String> answers = out.subList(1, out.size());
            assertEquals(AT_ONCE * ROUNDS, answers.size(), sent.stdout());

            int unhealthy = 0;
            for (String line : answers) {
                assertFalse(
                        line.contains(STDOUT_SECRET) || line.contains(STDERR_SECRET) || line.contains("4242"),
                        "the command's output reached the caller: " + line);
                JsonNode answer = AgentJson.readTree(line);
                JsonNode decision = answer.get("decisions").get(0);
                assertEquals(node, decision.get("node").asText(), line);
                if ("unhealthy".equals(decision.get("decision").asText())) {
                    unhealthy++;
                }
            }
            assertEquals(answers.size(), unhealthy, "every asker got the command's verdict: " + answers);

            List<String> runs = lines("runs");
            List<Integer> atOnce = lines("at-once").stream()
                    .map(String::strip)
                    .map(Integer::parseInt)
                    .toList();
            long bound = (long) Math.ceil(seconds / (1 + 10)) + 1; // a run takes 1 s; its verdict answers 10 s more
            System.out.printf(
                    "OnDemandHealthIT: %d diagnoses in %.1f s ran the health command %d time(s), at most"
                            + " %d at once (bound %d)%n",
                    answers.size(),
                    seconds,
                    runs.size(),
                    atOnce.stream().mapToInt(Integer::intValue).max().orElse(0),
                    bound);
            assertTrue(runs.size() >= 1 && runs.size() <= bound, "runs " + runs.size() + ", at most " + bound);
            assertTrue(runs.size() * 8 <= answers.size(), "far fewer runs than requests: " + runs.size());
            assertEquals(List.of(node), runs.stream().distinct().toList());
            assertTrue(atOnce.stream().allMatch(n -> n == 1), "runs overlapped: " + atOnce);
            assertEquals(runs.size(), lines("told").size());
            assertTrue(lines("told").stream().allMatch("on-request"::equals), "told: " + lines("told"));
            // The operator still has every word of it.
            String log = LocalAgent.read(agent.log());
            assertTrue(log.contains(STDERR_SECRET) && log.contains(STDOUT_SECRET), "the agent's log lacks the output");
        } finally {
            cluster.run(List.of("scancel", jobId));
        }
    }
}
