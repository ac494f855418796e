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
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.Job;

/**
 * A node replaced under its hostname as often as the lemon rule allows is kept out by the sweep,
 * listed with its marks from Slurm's accounting, and returned only by an administrator; and by
 * the agent, when a job's supervisor asks it to return the node the job lost.
 */
class LemonIT {

    private static final String NODE = "node3";

    private static LocalCluster cluster;
    private static ClusterNodes nodes;
    private final ObjectMapper json = new ObjectMapper();
    private final List<String> jobs = new ArrayList<>();

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
        nodes = new ClusterNodes(cluster);
    }

    @AfterEach
    void restore() {
        for (String job : jobs) {
            cluster.run(List.of("scancel", job));
        }
        nodes.restoreAll();
    }

    /** The sweep's policy file: two marks within an hour make a lemon. */
    private static Path policyIn(Path dir) throws IOException {
        return Files.writeString(
                dir.resolve("policy.yaml"),
                "lemonMarks: 2\nlemonWindowSeconds: 3600\nmaxNodes: 10\nmaxPartitionPercent: 100\n");
    }

    @Test
    void theSecondMarkInAnHourKeepsTheNodeOutUntilAnAdministratorReturnsIt() throws Exception {
        Path dir = Files.createDirectories(cluster.clusterDir().resolve("lemon-it"));
        Path policy = policyIn(dir);
        Path lock = dir.resolve("sweep.lock");

        forgiveEarlierMarks();

        // First fault: back under its hostname, resumed as always.
        nodes.replaceAndRevive(NODE);
        JsonNode first = sweep(policy, lock);
        assertEquals("resume-if-healthy", actionOn(first).get("kind").asText(), first.toString());
        assertEquals("done", actionOn(first).get("result").asText(), first.toString());
        nodes.waitForState(NODE, "IDLE", Duration.ofSeconds(30));

        // Second fault within the hour, after the first one's spell.
        awaitLastMarkClosed();
        // Listed as a lemon once accounting has it, then held.
        nodes.replaceAndRevive(NODE);
        AtomicReference<JsonNode> seen = new AtomicReference<>();
        JsonNode listed;
        try {
            listed = Wait.until("accounting to hold both marks of " + NODE, Duration.ofSeconds(30), () -> {
                JsonNode node = lemon(policy);
                seen.set(node);
                return node != null && node.get("marksCounted").asInt() == 2 ? Optional.of(node) : Optional.empty();
            });
        } catch (AssertionError e) {
            throw new AssertionError(
                    e.getMessage() + "; last listed: " + seen.get() + "; accounting's events:\n" + events(), e);
        }
        assertFalse(listed.get("held").asBoolean(), listed.toString());

        JsonNode second = sweep(policy, lock);
        assertEquals("hold-lemon", actionOn(second).get("kind").asText(), second.toString());
        assertEquals("done", actionOn(second).get("result").asText(), second.toString());
        assertEquals("IDLE+FAIL", nodes.state(NODE));
        assertTrue(nodes.reason(NODE).startsWith("autoresume: lemon: marked faulty 2 times"), nodes.reason(NODE));

        // The next sweep leaves it out.
        JsonNode third = sweep(policy, lock);
        assertTrue(actionOnOrNull(third) == null, third.toString());
        assertEquals("IDLE+FAIL", nodes.state(NODE));

        // Listed for the administrator, with its history and how to return it.
        JsonNode held = lemon(policy);
        assertTrue(held != null && held.get("held").asBoolean(), String.valueOf(held));
        assertEquals(2, held.get("marks").size(), held.toString());
        for (JsonNode mark : held.get("marks")) {
            assertTrue(mark.get("reason").asText().startsWith("Action:Replace"), held.toString());
        }
        assertEquals("autoresume node resume " + NODE, held.get("returnWith").asText());

        // The administrator returns it; the toolkit leaves that decision alone.
        CommandResult resumed = nodes.autoresume("node", "resume", NODE);
        assertEquals(0, resumed.exitCode(), resumed.stdout() + resumed.stderr());
        nodes.waitForState(NODE, "IDLE", Duration.ofSeconds(30));
        Wait.until("accounting to record the end of the hold", Duration.ofSeconds(30), () -> {
            JsonNode node = lemon(policy);
            return node == null ? Optional.of(true) : Optional.empty();
        });
        JsonNode after = sweep(policy, lock);
        assertTrue(actionOnOrNull(after) == null, after.toString());
        assertEquals("IDLE", nodes.state(NODE));
    }

    /**
     * A same-hostname job loses NODE, which already has one mark this hour. Its supervisor waits
     * for NODE to come back and asks the agent to resume it; the agent, given the sweep's policy,
     * counts the job's own mark as the second and holds the node instead. The supervisor stops
     * waiting at once (its replacement timeout is far off) and requeues the job, as Slurm alone
     * would leave it to be run again.
     */
    @Test
    @Tag(LocalCluster.CPU_ONLY)
    void theAgentHoldsALemonItWasAskedToResumeAndTheJobIsRequeuedAtOnce() throws Exception {
        Path dir = Files.createDirectories(cluster.clusterDir().resolve("lemon-agent-it"));
        Path policy = policyIn(dir);
        forgiveEarlierMarks();
        nodes.replaceAndRevive(NODE);
        nodes.scontrol("update", "nodename=" + NODE, "state=resume");
        nodes.waitForState(NODE, "IDLE", Duration.ofSeconds(30));
        awaitLastMarkClosed();

        Plugstack plugstack = Plugstack.install(cluster, "87-lemon-it-", List.of("auto_resume.so"));
        LocalAgent agent = null;
        try {
            plugstack.useAutoResume(cluster.launcher());
            agent = LocalAgent.start(
                    cluster, plugstack.installDir().resolve("agent"), "--lemon-policy", policy.toString());
            String jobId = cluster.submit(
                    """
                    #!/bin/bash
                    export AUTORESUME_AGENT_SOCKET=%s AUTORESUME_REPLACEMENT=same-hostname AUTORESUME_REPLACEMENT_TIMEOUT=600
                    srun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c '
                      if [ "${SLURM_RESTART_COUNT:-0}" = 0 ]; then touch "$SLURM_JOB_ID.a$AUTO_RESUME_ATTEMPT.$SLURM_PROCID"; sleep 300; fi'
                    """.formatted(agent.socket()),
                    List.of("-N2", "-w", "node1," + NODE, "--exclusive", "--requeue", "--open-mode=append"));
            jobs.add(jobId);
            Wait.until(
                    "both tasks of job " + jobId + " to run",
                    Duration.ofSeconds(300),
                    () -> Files.exists(cluster.jobsDir().resolve(jobId + ".a1.0"))
                                    && Files.exists(cluster.jobsDir().resolve(jobId + ".a1.1"))
                            ? Optional.of(true)
                            : Optional.empty());

            cluster.killNode(NODE);
            Timeline.awaitReplaceDecision(cluster, jobId, Duration.ofSeconds(60));
            // The job's own mark of NODE in accounting: the second this hour.
            Wait.until("accounting to hold both marks of " + NODE, Duration.ofSeconds(30), () -> {
                JsonNode node = lemon(policy);
                return node != null && node.get("marksCounted").asInt() == 2 ? Optional.of(true) : Optional.empty();
            });
            assertTrue(nodes.reason(NODE).startsWith("Action:Replace"), nodes.reason(NODE));

            long revived = System.nanoTime();
            cluster.reviveNode(NODE); // back under its own name: the supervisor asks the agent to resume it
            Job requeued =
                    cluster.waitForJob(jobId, "to be requeued", Duration.ofSeconds(120), job -> job.restarts() >= 1);
            Duration took = Duration.ofNanos(System.nanoTime() - revived);
            System.out.println(
                    "lemon held by the agent: job requeued " + took.toSeconds() + " s after the node came back");

            assertEquals(1, requeued.restarts());
            String state = nodes.state(NODE);
            assertTrue(state.matches(".*(FAIL|DOWN).*"), "held out of service, not resumed: " + state);
            assertTrue(nodes.reason(NODE).startsWith("autoresume: lemon: marked faulty 2 times"), nodes.reason(NODE));
            JsonNode listed = lemon(policy);
            assertTrue(listed != null && listed.get("held").asBoolean(), String.valueOf(listed));

            Timeline timeline = Timeline.of(cluster, jobId);
            assertTrue(timeline.all(Timeline.Kind.REPLACEMENT).isEmpty(), timeline.toString());
            assertEquals(1, timeline.all(Timeline.Kind.REQUEUE).size(), timeline.toString());
        } finally {
            if (agent != null) {
                agent.stop();
            }
            plugstack.removeAll();
        }
    }

    /**
     * Other tests mark this shared cluster's nodes all day. An administrator ending a lemon hold
     * forgives every mark before it: start from that, as a site would after a repair.
     */
    private void forgiveEarlierMarks() {
        nodes.scontrol("update", "nodename=" + NODE, "state=drain", "reason=autoresume: lemon: test baseline");
        nodes.scontrol("update", "nodename=" + NODE, "state=resume");
        nodes.waitForState(NODE, "IDLE", Duration.ofSeconds(30));
        Wait.until(
                "accounting to record the end of the baseline hold",
                Duration.ofSeconds(30),
                () -> events().lines()
                                .map(l -> l.split("\\|", -1))
                                .anyMatch(f -> f.length == 4
                                        && f[3].equals("autoresume: lemon: test baseline")
                                        && !f[1].equals("Unknown"))
                        ? Optional.of(true)
                        : Optional.empty());
    }

    /**
     * Accounting closed NODE's last mark, and a second has passed since: states that follow each
     * other within a second are one fault's (FAIL, then DOWN, ...), so the next mark comes later.
     */
    private void awaitLastMarkClosed() {
        Wait.until(
                "accounting to close the last mark of " + NODE + " and a spell's second to pass",
                Duration.ofSeconds(30),
                () -> {
                    Optional<LocalDateTime> closed = events().lines()
                            .map(l -> l.split("\\|", -1))
                            .filter(f -> f.length == 4 && f[2].equals("FAIL") && f[3].startsWith("Action:Replace"))
                            .reduce((a, b) -> b)
                            .filter(f -> !f[1].equals("Unknown"))
                            .map(f -> LocalDateTime.parse(f[1]));
                    return closed.isPresent()
                                    && LocalDateTime.now().isAfter(closed.get().plusSeconds(2))
                            ? Optional.of(true)
                            : Optional.empty();
                });
    }

    /** The node's events of the last hour as sacctmgr prints them, for a failure's message. */
    private static String events() {
        CommandResult events = cluster.run(List.of(
                "sacctmgr",
                "-n",
                "-P",
                "show",
                "event",
                "event=node",
                "nodes=" + NODE,
                "start=now-1hours",
                "format=TimeStart,TimeEnd,State,Reason"));
        return events.stdout() + events.stderr();
    }

    private JsonNode sweep(Path policy, Path lock) {
        CommandResult result =
                nodes.autoresume("sweep", "--policy", policy.toString(), "--lock", lock.toString(), "--json");
        try {
            return json.readTree(result.stdout());
        } catch (IOException e) {
            throw new UncheckedIOException(result.stdout() + result.stderr(), e);
        }
    }

    /** NODE's entry in `autoresume node lemons --json`, or null when it is not listed. */
    private JsonNode lemon(Path policy) {
        CommandResult result = nodes.autoresume("node", "lemons", NODE, "--policy", policy.toString(), "--json");
        assertEquals(0, result.exitCode(), result.stdout() + result.stderr());
        try {
            for (JsonNode node : json.readTree(result.stdout()).get("nodes")) {
                if (node.get("node").asText().equals(NODE)) {
                    return node;
                }
            }
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode actionOn(JsonNode report) {
        JsonNode action = actionOnOrNull(report);
        assertTrue(action != null, "no action on " + NODE + ": " + report);
        return action;
    }

    private static JsonNode actionOnOrNull(JsonNode report) {
        for (JsonNode action : report.get("actions")) {
            if (action.get("target").asText().equals(NODE)) {
                return action;
            }
        }
        return null;
    }
}
