package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.slurmautoresume.slurm.parse.Records.nodeText;
import static org.slurmautoresume.slurm.parse.Records.nodeTextWithReason;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.slurm.parse.NodeEventParser;

class NodeLemonsCommandTest {

    private final CliHarness cli = new CliHarness(Map.of());

    @TempDir
    Path dir;

    /** node2 held at 04:20 after two marks; node4 idle, marked once. The harness's clock reads 04:30. */
    private void cluster(String windowStart) {
        cli.answer(
                List.of("-o", "show", "node"),
                0,
                nodeTextWithReason(
                                "show-node-idle-fail.txt",
                                "node2",
                                "autoresume: lemon: marked faulty 2 times within the last 1 day [root@2026-11-22T04:20:00]")
                        + "\n" + nodeText("show-node-idle.txt", "node4") + "\n",
                "");
        cli.answer(
                List.of(
                        "-n",
                        "-P",
                        "show",
                        "event",
                        "event=node",
                        "nodes=node[2,4]",
                        "start=" + windowStart,
                        "format=" + NodeEventParser.FORMAT),
                0,
                """
                node2|2026-11-21T09:00:00|2026-11-21T09:30:00|FAIL|root(0)|Action:Replace
                node2|2026-11-21T09:40:00|2026-11-21T09:40:00|DRAIN|root(0)|maintenance
                node4|2026-11-21T12:00:00|2026-11-21T12:10:00|FAIL|root(0)|Action:Reboot Xid 79
                node2|2026-11-22T04:14:02|2026-11-22T04:20:00|FAIL|root(0)|Action:Replace
                node2|2026-11-22T04:20:00|Unknown|FAIL|root(0)|autoresume: lemon: marked faulty 2 times within the last 1 day
                """,
                "");
        cli.answer(
                List.of(
                        "-a",
                        "-X",
                        "-n",
                        "-P",
                        "-N",
                        "node2",
                        "-S",
                        "2026-11-22T04:14:02",
                        "-E",
                        "2026-11-22T04:14:02",
                        "-o",
                        "JobID"),
                0,
                "17\n",
                "");
    }

    @Test
    void listsEachLemonWithItsMarksTheirJobsAndHowToReturnIt() throws Exception {
        Path policy = Files.writeString(dir.resolve("policy.yaml"), "lemonMarks: 2\nlemonWindowSeconds: 86400\n");
        cluster("2026-11-21T04:20");
        assertEquals(0, cli.run("node", "lemons", "--policy", policy.toString(), "--json"), cli.err);
        JsonNode doc = new ObjectMapper().readTree(cli.out);
        assertEquals(2, doc.get("lemonMarks").asInt());
        assertEquals(86400, doc.get("lemonWindowSeconds").asInt());
        JsonNode nodes = doc.get("nodes");
        assertEquals(1, nodes.size(), cli.out);
        JsonNode node2 = nodes.get(0);
        assertEquals("node2", node2.get("node").asText());
        assertTrue(node2.get("held").asBoolean());
        assertEquals("2026-11-22T04:20:00", node2.get("heldSince").asText());
        assertEquals(2, node2.get("marksCounted").asInt());
        assertEquals(
                "2026-11-21T09:00:00", node2.get("marks").get(0).get("time").asText());
        assertEquals("Action:Replace", node2.get("marks").get(1).get("reason").asText());
        assertEquals("17", node2.get("marks").get(1).get("jobs").get(0).asText());
        assertEquals(0, node2.get("marks").get(0).get("jobs").size());
        assertEquals("autoresume node resume node2", node2.get("returnWith").asText());

        assertEquals(0, cli.run("node", "lemons", "--policy", policy.toString()), cli.err);
        assertTrue(cli.out.contains("node2 IDLE+FAIL, held since 2026-11-22T04:20:00: 2 fault marks"), cli.out);
        assertTrue(cli.out.contains("once repaired: autoresume node resume node2"), cli.out);
    }

    @Test
    void theDefaultRuleNeedsThreeMarks() throws Exception {
        cluster("2026-11-15T04:20");
        assertEquals(0, cli.run("node", "lemons", "--json"), cli.err);
        JsonNode doc = new ObjectMapper().readTree(cli.out);
        assertEquals(3, doc.get("lemonMarks").asInt());
        // node2 is held, so it is listed whatever the rule says; node4's single mark is not a lemon.
        assertEquals(1, doc.get("nodes").size(), cli.out);
        assertEquals("node2", doc.get("nodes").get(0).get("node").asText());
    }

    @Test
    void helpExplainsHowToReturnANode() {
        assertEquals(0, cli.run("node", "lemons", "--help"), cli.err);
        assertTrue(cli.out.contains("autoresume node resume NODE"), cli.out);
        assertTrue(cli.out.contains("--json"), cli.out);
    }
}
