package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.JobState;

/**
 * `autoresume sweep`, run as root, on a node the test user's job shares with a job of a second
 * ordinary user: whatever the test user's job does, the sweep never sets DOWN (which kills every
 * job there) a node where the other user's job runs. Slurm's own state is the judge.
 */
class SweepSharedNodeIT {

    private static final String JOB_NAME = "sweep-it";
    private static final String SLEEP = "#!/bin/bash\nsleep 600\n";

    private static LocalCluster cluster;
    private static ClusterNodes nodes;
    private final ObjectMapper json = new ObjectMapper();
    private Path dir;
    private Path policy;
    private Path textfile;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
        nodes = new ClusterNodes(cluster);
    }

    @BeforeEach
    void prepare() throws IOException {
        dir = Files.createDirectories(cluster.clusterDir().resolve("sweep-it"));
        policy = dir.resolve("shared-node-policy.yaml");
        textfile = dir.resolve("shared-node-sweep.prom");
    }

    @AfterEach
    void restore() {
        cluster.run(List.of("scancel", "--name=" + JOB_NAME)); // both users' jobs: the tests run as root
        nodes.restoreAll();
    }

    private JsonNode sweep(int expectedExit, String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "sweep",
                "--policy",
                policy.toString(),
                "--lock",
                dir.resolve("sweep.lock").toString(),
                "--json"));
        args.addAll(List.of(extra));
        CommandResult result = nodes.autoresume(args.toArray(String[]::new));
        assertEquals(expectedExit, result.exitCode(), result.stdout() + result.stderr());
        return report(result);
    }

    private JsonNode report(CommandResult result) {
        try {
            return json.readTree(result.stdout());
        } catch (IOException e) {
            throw new UncheckedIOException(result.stdout(), e);
        }
    }

    /** The first entry of the report's {@code list} ("actions", "findings") with this kind for {@code node}. */
    private static Optional<JsonNode> entry(JsonNode report, String list, String kind, String node) {
        for (JsonNode each : report.get(list)) {
            String target = each.has("target")
                    ? each.get("target").asText()
                    : each.get("node").asText();
            if (each.get("kind").asText().equals(kind) && target.equals(node)) {
                return Optional.of(each);
            }
        }
        return Optional.empty();
    }

    /** Waits until a dry run (which changes nothing) plans {@code kind} for {@code node}, past the policy's limit. */
    private void waitForPlanned(String list, String kind, String node) {
        Wait.until("a dry run to report " + kind + " on " + node, Duration.ofSeconds(30), () -> {
            CommandResult dry = nodes.autoresume("sweep", "--policy", policy.toString(), "--dry-run", "--json");
            return dry.stdout().isBlank() ? Optional.empty() : entry(report(dry), list, kind, node);
        });
    }

    private String[] runningSideBySide(String node) {
        String mine = cluster.submit(SLEEP, List.of("-n1", "-w", node, "--job-name=" + JOB_NAME));
        String theirs = cluster.submitAsOtherUser(SLEEP, List.of("-n1", "-w", node, "--job-name=" + JOB_NAME));
        for (String job : List.of(mine, theirs)) {
            cluster.waitForJob(job, "to run on " + node, Duration.ofSeconds(120), j -> j.state() == JobState.RUNNING);
        }
        return new String[] {mine, theirs};
    }

    private double metric(String sample) throws IOException {
        for (String line : Files.readAllLines(textfile)) {
            if (line.startsWith(sample + " ")) {
                return Double.parseDouble(line.substring(sample.length() + 1).strip());
            }
        }
        throw new AssertionError("no " + sample + " in " + Files.readString(textfile));
    }

    /**
     * The test user's job stuck COMPLETING: the user cancels it while its node's slurmd is
     * stopped, so Slurm can never finish ending it, as with a task that cannot be killed. The
     * other user's job on the node keeps running; its slurmstepd is untouched.
     */
    @Test
    void aJobStuckCompletingBesideAnotherUsersJobDrainsTheNodeAndOnlyOnceNoneRunsSetsItDown() throws Exception {
        String node = "node3";
        Files.writeString(policy, "completingAfterSeconds: 1\nmaxNodes: 10\nmaxPartitionPercent: 100\n");
        String[] jobs = runningSideBySide(node);
        String mine = jobs[0];
        String theirs = jobs[1];
        cluster.freezeSlurmd(node);
        try {
            CommandResult cancelled = cluster.runAsTestUser(List.of("scancel", mine));
            assertEquals(0, cancelled.exitCode(), cancelled.stderr());
            cluster.waitForJob(mine, "to be COMPLETING", Duration.ofSeconds(30), j -> j.state() == JobState.COMPLETING);
            waitForPlanned("actions", "drain-stuck-completing", node);

            JsonNode drained = sweep(10, "--textfile", textfile.toString());
            JsonNode action = entry(drained, "actions", "drain-stuck-completing", node)
                    .orElseThrow(() -> new AssertionError("no drain of " + node + ": " + drained));
            assertEquals("done", action.get("result").asText(), action.toString());
            assertTrue(action.get("why").asText().contains(theirs), action.toString());
            assertTrue(entry(drained, "actions", "down-stuck-completing", node).isEmpty(), drained.toString());
            String state = nodes.state(node);
            assertTrue(state.contains("DRAIN") && !state.contains("DOWN"), state);
            assertTrue(nodes.reason(node).startsWith("stuck COMPLETING job " + mine + ":"), nodes.reason(node));
            assertEquals(JobState.RUNNING, cluster.slurm().requireJob(theirs).state());
            assertEquals(
                    1.0, metric("autoresume_sweep_last_pass_actions{kind=\"drain-stuck-completing\",result=\"done\"}"));
            assertEquals(
                    0.0, metric("autoresume_sweep_last_pass_actions{kind=\"down-stuck-completing\",result=\"done\"}"));

            // Right after, the drain's own state: nothing new, and a finding says what the node waits for.
            JsonNode again = sweep(0, "--textfile", textfile.toString());
            assertEquals("nothing-to-do", again.get("status").asText(), again.toString());
            JsonNode waits = entry(again, "findings", "stuck-completing-waits-for-jobs", node)
                    .orElseThrow(() -> new AssertionError("no finding for " + node + ": " + again));
            assertTrue(waits.get("why").asText().contains(theirs), waits.toString());
            assertEquals(1.0, metric("autoresume_sweep_last_pass_findings{kind=\"stuck-completing-waits-for-jobs\"}"));
            assertEquals(JobState.RUNNING, cluster.slurm().requireJob(theirs).state());

            // The other user ends their job; it cannot finish ending either. Only stuck jobs are left.
            CommandResult theyCancel = cluster.runAsOtherUser(List.of("scancel", theirs));
            assertEquals(0, theyCancel.exitCode(), theyCancel.stderr());
            waitForPlanned("actions", "down-stuck-completing", node);
            JsonNode down = sweep(10);
            JsonNode downed = entry(down, "actions", "down-stuck-completing", node)
                    .orElseThrow(() -> new AssertionError("no DOWN of " + node + ": " + down));
            assertEquals("done", downed.get("result").asText(), downed.toString());
            assertTrue(nodes.state(node).contains("DOWN"), nodes.state(node));
            assertTrue(nodes.reason(node).startsWith("Action:Reboot stuck COMPLETING job " + mine), nodes.reason(node));
        } finally {
            cluster.thawNode(node);
        }
    }

    /**
     * A node FAIL with Action:Replace, the mark a user's request leaves on a node of their job,
     * past escalateFailAfter while the other user's job still runs there: reported, never set
     * DOWN; FAIL already keeps new jobs away. Once no job is left the escalation goes ahead.
     */
    @Test
    void aFailedNodeWhereAnotherUsersJobRunsStaysFailAndIsSetDownOnlyOnceNoJobIsLeft() throws Exception {
        String node = "node2";
        Files.writeString(policy, "escalateFailAfterSeconds: 1\nmaxNodes: 10\nmaxPartitionPercent: 100\n");
        String[] jobs = runningSideBySide(node);
        nodes.scontrol("update", "nodename=" + node, "state=fail", "reason=Action:Replace");
        waitForPlanned("findings", "escalation-waits-for-jobs", node);

        JsonNode swept = sweep(0, "--textfile", textfile.toString());
        assertFalse(swept.get("actions").toString().contains("\"" + node + "\""), swept.toString());
        JsonNode waits = entry(swept, "findings", "escalation-waits-for-jobs", node)
                .orElseThrow(() -> new AssertionError("no finding for " + node + ": " + swept));
        for (String job : jobs) {
            assertTrue(waits.get("why").asText().contains(job), waits.toString());
            assertEquals(JobState.RUNNING, cluster.slurm().requireJob(job).state(), job);
        }
        String state = nodes.state(node);
        assertTrue(state.contains("FAIL") && !state.contains("DOWN"), state);
        assertTrue(nodes.reason(node).startsWith("Action:Replace"), nodes.reason(node));
        assertEquals(1.0, metric("autoresume_sweep_last_pass_findings{kind=\"escalation-waits-for-jobs\"}"));
        assertEquals(0.0, metric("autoresume_sweep_last_pass_actions{kind=\"escalate-to-down\",result=\"done\"}"));

        // Both owners end their jobs: nothing is left to kill, so the last resort goes ahead.
        assertEquals(0, cluster.runAsTestUser(List.of("scancel", jobs[0])).exitCode());
        assertEquals(0, cluster.runAsOtherUser(List.of("scancel", jobs[1])).exitCode());
        waitForPlanned("actions", "escalate-to-down", node);
        JsonNode escalated = sweep(10);
        assertEquals(
                "done",
                entry(escalated, "actions", "escalate-to-down", node)
                        .orElseThrow()
                        .get("result")
                        .asText(),
                escalated.toString());
        assertTrue(nodes.state(node).contains("DOWN"), nodes.state(node));
    }
}
