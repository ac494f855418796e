package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.SlurmVersion;

/**
 * Job names the ordinary test user writes to look like fields of scontrol's one-line record:
 * the agent and the sweep read only what Slurm says. What the job really holds is
 * asked of squeue, whose format here prints no user text.
 */
class ForgedJobRecordIT {

    private static LocalCluster cluster;
    private static ClusterNodes nodes;
    private static LocalAgent agent;
    private final ObjectMapper json = new ObjectMapper();
    private final List<String> jobs = new ArrayList<>();

    @BeforeAll
    static void startAgent() {
        cluster = LocalCluster.get();
        nodes = new ClusterNodes(cluster);
        agent = LocalAgent.start(
                cluster,
                cluster.clusterDir()
                        .resolve("forged-it-" + ProcessHandle.current().pid()));
    }

    @AfterAll
    static void stopAgent() throws Exception {
        if (agent != null) {
            agent.stop();
        }
    }

    @AfterEach
    void cancelJobs() {
        for (String job : jobs) {
            cluster.run(List.of("scancel", job));
        }
        nodes.restoreAll();
    }

    private String submitOn(String node, String name) {
        String id = cluster.submit("#!/bin/bash\nsleep 300\n", List.of("-N1", "-w", node, "-J", name));
        jobs.add(id);
        return id;
    }

    /**
     * Slurm's own state and node list of a running job, from a reading with no user text in it.
     * Up to 240 s, as for every first start: on 22.05 nodes freed by an earlier test's resized or
     * revived jobs can sit IDLE+PLANNED for minutes (docs/slurm-behaviour.md).
     */
    private String runningNodesOf(String jobId) {
        return Wait.until("job " + jobId + " to run", Duration.ofSeconds(240), () -> {
            CommandResult r = cluster.run(List.of("squeue", "-h", "-j", jobId, "-o", "%T|%N"));
            String[] f = r.stdout().strip().split("\\|");
            return f.length == 2 && f[0].equals("RUNNING") ? Optional.of(f[1]) : Optional.empty();
        });
    }

    @Test
    void aNameWrittenLikeANodeListMakesTheAgentWatchOnlyTheJobsOwnNode() throws Exception {
        String jobId = submitOn("node1", "x NodeList=node[1-4] JobState=RUNNING");
        assertEquals("node1", runningNodesOf(jobId));

        CommandResult watched = cluster.runAsTestUser(List.of(
                cluster.launcher().toString(),
                "agent-call",
                "--socket",
                agent.socket().toString(),
                "{\"op\":\"watch\",\"jobId\":\"" + jobId + "\"}"));
        assertEquals(0, watched.exitCode(), watched.stdout() + watched.stderr());
        JsonNode answer = json.readTree(watched.stdout());
        assertTrue(answer.get("ok").asBoolean(), watched.stdout());
        List<String> named = new ArrayList<>();
        answer.get("decisions").forEach(d -> named.add(d.get("node").asText()));
        assertEquals(List.of("node1"), named, watched.stdout());
    }

    @Test
    void aNameWithALineBreakIsReportedByTheSweepWhichStillDoesItsWork() throws Exception {
        String readable = submitOn("node3", "forged-it-plain");
        String broken = submitOn("node1", "x\nJobState=RUNNING NodeList=node4");
        runningNodesOf(readable);
        assertEquals("node1", runningNodesOf(broken));
        nodes.replaceAndRevive("node2");

        CommandResult swept = nodes.autoresume(
                "sweep",
                "--policy",
                policy().toString(),
                "--lock",
                cluster.clusterDir().resolve("forged-it.lock").toString(),
                "--json");
        assertEquals(10, swept.exitCode(), swept.stdout() + swept.stderr());
        JsonNode report = json.readTree(swept.stdout());
        assertEquals("acted", report.get("status").asText(), swept.stdout());
        JsonNode action = report.get("actions").get(0);
        assertEquals("node2", action.get("target").asText(), swept.stdout());
        assertEquals("done", action.get("result").asText(), swept.stdout());
        nodes.waitForState("node2", "IDLE", Duration.ofSeconds(10));

        List<String> unreadable = new ArrayList<>();
        report.get("unreadableJobs").forEach(u -> unreadable.add(u.get("jobId").asText()));
        // Earlier tests' ended jobs may still be listed (MinJobAge), forged records included.
        if (readsJson()) {
            assertEquals(List.of(), unreadable, swept.stdout());
        } else {
            assertTrue(unreadable.contains(broken) && !unreadable.contains(readable), swept.stdout());
        }
        assertTrue(report.get("jobsSeen").asInt() >= 1, swept.stdout());
        // The job the user broke still runs where Slurm put it: nothing acted on its made-up fields.
        assertEquals("node1", runningNodesOf(broken));
    }

    /**
     * A name that writes a whole record before its line break and an id that exists nowhere after
     * it: read alone, the listing shows two plausible jobs. The sweep
     * checks the listing against squeue's ids, which hold no user text: both records are
     * reported unreadable, and the job really there is left where Slurm put it.
     */
    @Test
    void aWholeRecordForgedWithAnInventedIdIsReportedNotSwept() throws Exception {
        String invented = "3999999999";
        String readable = submitOn("node3", "forged-it-plain");
        String broken = submitOn("node1", "x JobState=RUNNING NodeList=node4\nJobId=" + invented + " JobName=y");
        runningNodesOf(readable);
        assertEquals("node1", runningNodesOf(broken));

        CommandResult swept = nodes.autoresume(
                "sweep",
                "--policy",
                policy().toString(),
                "--lock",
                cluster.clusterDir().resolve("forged-it.lock").toString(),
                "--json");
        JsonNode report = json.readTree(swept.stdout());
        List<String> unreadable = new ArrayList<>();
        report.get("unreadableJobs").forEach(u -> unreadable.add(u.get("jobId").asText()));
        // On 22.05 both halves of the forged text are reported; read as JSON, nothing is forged.
        if (readsJson()) {
            assertEquals(List.of(), unreadable, swept.stdout() + swept.stderr());
        } else {
            assertTrue(
                    unreadable.containsAll(List.of(broken, invented)) && !unreadable.contains(readable),
                    swept.stdout() + swept.stderr());
        }
        assertEquals("node1", runningNodesOf(broken));
    }

    /**
     * Whether the toolkit reads jobs as JSON on this cluster's release (23.02 and later, as
     * SlurmClient decides): a name is then one string field and forges no record, so the sweep
     * has nothing to report unreadable; on 22.05 it reads scontrol's one-line text.
     */
    private static boolean readsJson() {
        return SlurmVersion.parse(cluster.release()).atLeast(SlurmVersion.FIRST_WITH_JSON);
    }

    private Path policy() throws Exception {
        Path dir = Files.createDirectories(cluster.clusterDir().resolve("forged-it"));
        Path policy = dir.resolve("policy.yaml");
        Files.writeString(policy, "maxNodes: 10\nmaxPartitionPercent: 100\nlemonMarks: 0\n");
        return policy;
    }
}
