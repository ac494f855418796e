package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.agent.protocol.AgentJson;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * The audit log survives one user's flood: the ordinary test user's job is served first, then
 * the same user sends thousands of requests the agent refuses (lines that are no JSON, and
 * `diagnose` of a node name no cluster has, which the policy refuses without asking Slurm). The
 * audit log still starts with the line it started with, holds far fewer of the user's refusal
 * lines than were sent, and counts the rest in lines of their own for the user's uid: every
 * refusal is either written or counted.
 */
class AuditFloodIT {

    private static final int FLOOD = 3_000;

    @Test
    void aUsersFloodOfRefusedRequestsLeavesTheHistoryAndCountsWhatWasLeftOut() throws Exception {
        LocalCluster cluster = LocalCluster.get();
        LocalAgent agent = LocalAgent.start(
                cluster,
                cluster.clusterDir()
                        .resolve("audit-flood-it-" + ProcessHandle.current().pid()));
        String jobId = cluster.submit("#!/bin/bash\nsleep 300\n", List.of("-N1", "-J", "audit-flood-it"));
        try {
            Job job = cluster.waitForJob(
                    jobId,
                    "to run",
                    Duration.ofSeconds(300),
                    j -> j.state() == JobState.RUNNING && !j.nodeList().isBlank());
            String node = Hostlist.expand(job.nodeList()).get(0);
            long uid = Long.parseLong(cluster.run(List.of("id", "-u", cluster.testUser()))
                    .stdout()
                    .strip());

            // The user's own job, served: the history that must survive.
            JsonNode served = agent.callAsTestUser(cluster, LocalAgent.request("diagnose", jobId, node, ""));
            assertTrue(served.get("ok").asBoolean(), served.toString());
            String first = Files.readAllLines(agent.auditLog()).get(0);

            String flooder = String.join(
                    "\n",
                    "import json, socket, sys, time",
                    "path, n = sys.argv[1], int(sys.argv[2])",
                    "refused = 0",
                    "start = time.time()",
                    "for i in range(n):",
                    "    line = '{not json %d' % i if i % 2 else json.dumps({'op': 'diagnose', 'jobId': '1',",
                    "                                                      'nodes': ['flood;node%d' % i]})",
                    "    s = socket.socket(socket.AF_UNIX)",
                    "    s.connect(path)",
                    "    s.sendall((line + '\\n').encode())",
                    "    refused += json.loads(s.makefile().readline()).get('ok') is False",
                    "    s.close()",
                    "print('refused=%d seconds=%.1f' % (refused, time.time() - start))");
            CommandResult sent = cluster.runAsTestUser(
                    List.of("python3", "-c", flooder, agent.socket().toString(), String.valueOf(FLOOD)));
            assertEquals(0, sent.exitCode(), sent.stdout() + sent.stderr());
            Matcher m = Pattern.compile("refused=(\\d+) seconds=([0-9.]+)")
                    .matcher(sent.stdout().strip());
            assertTrue(m.matches(), sent.stdout());
            assertEquals(FLOOD, Integer.parseInt(m.group(1)), "every request of the flood refused");
            double seconds = Double.parseDouble(m.group(2));

            // The user's next request that gets a line brings the count of what was left out. A slow
            // flood refills the share as it goes, so counts may come mid-flood too: wait for the last.
            List<JsonNode> lines =
                    Wait.until("every refusal of the test user written or counted", Duration.ofSeconds(90), () -> {
                        agent.callAsTestUser(cluster, LocalAgent.request("diagnose", jobId, node, ""));
                        List<JsonNode> now = lines(agent);
                        return refusalsWritten(now, uid) + refusalsLeftOut(now, uid) >= FLOOD
                                ? Optional.of(now)
                                : Optional.empty();
                    });

            assertEquals(first, Files.readAllLines(agent.auditLog()).get(0), "the first line is still the first");
            long written = refusalsWritten(lines, uid);
            long leftOut = refusalsLeftOut(lines, uid);
            System.out.printf(
                    "%d refused requests in %.1f s: %d refusal lines written, %d counted as left out%n",
                    FLOOD, seconds, written, leftOut);
            // The share: a burst of 120, then one a second (and a few for the seconds the calls took).
            assertTrue(written <= 120 + (long) Math.ceil(seconds) + 40, "refusal lines written: " + written);
            assertTrue(written < FLOOD / 5, "refusal lines written: " + written);
            assertEquals(FLOOD, written + leftOut, "each refusal written or counted");
        } finally {
            cluster.run(List.of("scancel", jobId));
            agent.stop();
        }
    }

    private static long refusalsWritten(List<JsonNode> lines, long uid) {
        return lines.stream()
                .filter(l -> l.path("uid").asLong(-1) == uid
                        && l.has("decisions")
                        && !l.get("ok").asBoolean())
                .count();
    }

    private static long refusalsLeftOut(List<JsonNode> lines, long uid) {
        return lines.stream()
                .filter(l -> l.path("uid").asLong(-1) == uid)
                .mapToLong(l -> l.path("refusalsLeftOut").asLong())
                .sum();
    }

    private static List<JsonNode> lines(LocalAgent agent) {
        try {
            List<JsonNode> lines = new ArrayList<>();
            for (String line : Files.readAllLines(agent.auditLog())) {
                lines.add(AgentJson.readTree(line));
            }
            return lines;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
