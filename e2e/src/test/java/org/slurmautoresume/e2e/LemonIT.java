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
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;

/**
 * A node replaced under its hostname as often as the lemon rule allows is kept out by the sweep,
 * listed with its marks from Slurm's accounting, and returned only by an administrator.
 */
class LemonIT {

    private static final String NODE = "node3";

    private static LocalCluster cluster;
    private static ClusterNodes nodes;
    private final ObjectMapper json = new ObjectMapper();

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
        nodes = new ClusterNodes(cluster);
    }

    @AfterEach
    void restore() {
        nodes.restoreAll();
    }

    @Test
    void theSecondMarkInAnHourKeepsTheNodeOutUntilAnAdministratorReturnsIt() throws Exception {
        Path dir = Files.createDirectories(cluster.clusterDir().resolve("lemon-it"));
        Path policy = Files.writeString(
                dir.resolve("policy.yaml"),
                "lemonMarks: 2\nlemonWindowSeconds: 3600\nmaxNodes: 10\nmaxPartitionPercent: 100\n");
        Path lock = dir.resolve("sweep.lock");

        // Other tests mark this shared cluster's nodes all day. An administrator ending a lemon
        // hold forgives every mark before it: start from that, as a site would after a repair.
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

        // First fault: back under its hostname, resumed as always.
        nodes.replaceAndRevive(NODE);
        JsonNode first = sweep(policy, lock);
        assertEquals("resume-if-healthy", actionOn(first).get("kind").asText(), first.toString());
        assertEquals("done", actionOn(first).get("result").asText(), first.toString());
        nodes.waitForState(NODE, "IDLE", Duration.ofSeconds(30));

        // Second fault within the hour, after the first one's spell: states that follow each other
        // within a second are one fault's (FAIL, then DOWN, ...), so the next mark comes later.
        Wait.until(
                "accounting to close the first mark of " + NODE + " and a spell's second to pass",
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
