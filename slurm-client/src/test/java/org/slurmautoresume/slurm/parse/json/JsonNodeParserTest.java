package org.slurmautoresume.slurm.parse.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.ParseException;

class JsonNodeParserTest {

    private final JsonNodeParser parser = new JsonNodeParser(ZoneOffset.UTC);

    static Stream<Arguments> nodeFixtures() {
        return JsonFixtures.named("show-node-");
    }

    @ParameterizedTest
    @MethodSource("nodeFixtures")
    void keepsEveryFieldOfEveryRecord(String version, String fixture) {
        String output = Fixtures.read(version, fixture);
        List<JsonNode> records = JsonFixtures.records(output, "nodes");
        List<Node> nodes = parser.parseAll(output);
        assertEquals(records.size(), nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            JsonFixtures.assertRawKeepsEveryField(records.get(i), nodes.get(i).raw(), fixture);
            assertEquals(records.get(i).get("name").textValue(), nodes.get(i).name());
            assertTrue(nodes.get(i).port().isPresent(), fixture);
        }
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            nullValues = "-",
            value = {
                // version | fixture | node | state | not responding | reason text | reason user
                "slurm-23.02 | show-node-idle.json | node2 | IDLE | false | - | -",
                "slurm-23.02 | show-node-down-not-responding.json | node2 | DOWN+NOT_RESPONDING | true | Not responding | root",
                "slurm-23.02 | show-node-idle-fail.json | node2 | IDLE+FAIL | false | Action:Replace | root",
                "slurm-23.02 | show-node-fail-not-responding.json | node2 | DOWN+FAIL+NOT_RESPONDING | true | Action:Replace | root",
                "slurm-23.02 | show-node-idle-drain.json | node2 | IDLE+DRAIN | false | bad gpu count=7 of 8 | root",
                "slurm-23.11 | show-node-fail-not-responding.json | node2 | DOWN+FAIL+NOT_RESPONDING | true | Action:Replace | root",
                "slurm-23.11 | show-node-drain-resume-after-cloud.json | node3 | IDLE+DRAIN | false "
                        + "| Action:Reboot fw=2.1 pending State=odd | ops",
                "slurm-24.05 | show-node-idle.json | node2 | IDLE | false | - | -",
                "slurm-24.05 | show-node-idle-fail.json | node2 | IDLE+FAIL | false | Action:Replace | root",
                "slurm-24.05 | show-node-fail-not-responding.json | node2 | DOWN+FAIL+NOT_RESPONDING | true | Action:Replace | root",
                "slurm-24.05 | show-node-idle-drain.json | node2 | IDLE+DRAIN | false | bad gpu count=7 of 8 | root",
                "slurm-25.05 | show-node-idle.json | node2 | IDLE | false | - | -",
                "slurm-25.05 | show-node-mixed-fail.json | node2 | MIXED+FAIL | false | Action:Replace | root",
                "slurm-25.05 | show-node-down-fail-not-responding.json | node2 | DOWN+FAIL+NOT_RESPONDING | true "
                        + "| Action:Replace : Not responding | root",
                "slurm-25.11 | show-node-idle.json | node2 | IDLE | false | - | -",
                "slurm-25.11 | show-node-mixed-fail.json | node2 | MIXED+FAIL | false | Action:Replace | root",
                "slurm-25.11 | show-node-down-fail-not-responding.json | node2 | DOWN+FAIL+NOT_RESPONDING | true "
                        + "| Action:Replace : Not responding | root",
                "slurm-25.11 | show-node-idle-blocked.json | node2 | IDLE+BLOCKED | false | - | -"
            })
    void readsStateAndReason(
            String version,
            String fixture,
            String name,
            String state,
            boolean notResponding,
            String reasonText,
            String reasonUser) {
        Node node = parser.parseAll(Fixtures.read(version, fixture)).get(0);
        assertEquals(name, node.name());
        assertEquals(state, node.state().display());
        assertEquals(notResponding, node.state().notResponding());
        assertEquals(reasonText, node.reason().map(r -> r.text()).orElse(null));
        assertEquals(reasonUser, node.reason().flatMap(r -> r.user()).orElse(null));
        assertEquals("127.0.0.1", node.address());
        assertEquals("localhost", node.hostname());
        assertEquals(List.of("debug"), node.partitions());
        assertEquals(4, node.cpus().getAsInt());
        assertTrue(node.gres().isEmpty());
    }

    /** data_parser lists NOT_RESPONDING before FAIL; scontrol's text, and so display(), the other way round. */
    @Test
    void flagsComeBackInTheTextOrder() {
        Node node = parser.parseAll("{\"nodes\": [{\"name\": \"n1\", \"state\": "
                        + "[\"DOWN\", \"NOT_RESPONDING\", \"POWER_DRAIN\", \"FAIL\", \"DRAIN\"]}]}")
                .get(0);
        assertEquals(
                List.of("DRAIN", "FAIL", "NOT_RESPONDING", "POWER_DRAIN"),
                node.state().flags());
        assertEquals("DOWN+DRAIN+FAIL+NOT_RESPONDING+POWER_DRAIN", node.state().display());
        assertTrue(node.state().isUnhealthy());
    }

    /**
     * scontrol's text prints BLOCKED first and EXTERNAL after DYNAMIC_NORM (node_state_flags[]);
     * v0.0.44 lists EXTERNAL after CLOUD and BLOCKED last, so both come back in the text's order.
     */
    @Test
    void blockedAndExternalComeBackInTheTextOrder() {
        Node blocked = parser.parseAll(
                        "{\"nodes\": [{\"name\": \"n1\", \"state\": " + "[\"IDLE\", \"CLOUD\", \"BLOCKED\"]}]}")
                .get(0);
        assertEquals("IDLE+BLOCKED+CLOUD", blocked.state().display());
        Node external = parser.parseAll("{\"nodes\": [{\"name\": \"n1\", \"state\": "
                        + "[\"IDLE\", \"EXTERNAL\", \"FAIL\", \"DYNAMIC_NORM\"]}]}")
                .get(0);
        assertEquals("IDLE+DYNAMIC_NORM+EXTERNAL+FAIL", external.state().display());
        assertFalse(blocked.state().isSchedulable());
        assertFalse(external.state().isSchedulable());
    }

    /** Which answers can name BLOCKED and EXTERNAL: all but those of 24.05 to 25.05's older data_parsers. */
    @ParameterizedTest
    @CsvSource({
        "slurm-23.02, show-node-idle.json, true", // no meta: taken as it is (and 23.02 has neither flag)
        "slurm-23.11, show-node-idle.json, true", // v0.0.40 on 23.11: neither flag exists yet
        "slurm-24.05, show-node-idle.json, false", // v0.0.41
        "slurm-24.11, show-node-idle.json, false", // v0.0.42
        "slurm-25.05, show-node-idle.json, false", // v0.0.43
        "slurm-25.11, show-node-idle-blocked.json, true", // v0.0.44
    })
    void answersThatCannotNameBlockedOrExternalAreLeftToTheText(String version, String fixture, boolean complete) {
        String json = Fixtures.read(version, fixture);
        assertEquals(complete, parser.parseAllWithEveryFlag(json).isPresent());
        parser.parseAllWithEveryFlag(json).ifPresent(nodes -> assertEquals(parser.parseAll(json), nodes));
    }

    @Test
    void aReleaseOrDataParserOfAnotherShapeIsTakenAsItIs() {
        String odd = "{\"meta\": {\"plugin\": {\"data_parser\": \"data_parser/latest\"}, \"slurm\": {\"version\":"
                + " {\"major\": \"24\", \"minor\": \"11\"}}}, \"nodes\": [{\"name\": \"n1\", \"state\": [\"IDLE\"]}]}";
        assertTrue(parser.parseAllWithEveryFlag(odd).isPresent());
        String numbers = "{\"meta\": {\"plugin\": {\"data_parser\": \"data_parser/v0.0.42\"}, \"slurm\": {\"version\":"
                + " {\"major\": 24, \"minor\": 11}}}, \"nodes\": [{\"name\": \"n1\", \"state\": [\"IDLE\"]}]}";
        assertTrue(parser.parseAllWithEveryFlag(numbers).isEmpty());
    }

    @Test
    void readsEveryNumberShapeAndKeepsUnknownFields() {
        String plain = "{\"nodes\": [{\"name\": \"n1\", \"state\": [\"IDLE\"], \"port\": 6818, "
                + "\"boot_time\": 1795320278, \"future_field\": {\"a\": [1, 2]}}]}";
        String wrapped = "{\"nodes\": [{\"name\": \"n1\", \"state\": [\"IDLE\"], "
                + "\"port\": {\"set\": true, \"infinite\": false, \"number\": 6818}, "
                + "\"boot_time\": {\"set\": true, \"infinite\": false, \"number\": 1795320278}}]}";
        String complex = "{\"nodes\": [{\"name\": \"n1\", \"state\": [\"IDLE\"], \"port\": \"6818\", "
                + "\"boot_time\": 1795320278, \"slurmd_start_time\": null, \"last_busy\": \"Infinity\"}]}";
        for (String json : List.of(plain, wrapped, complex)) {
            Node node = parser.parseAll(json).get(0);
            assertEquals(6818, node.port().getAsInt(), json);
            assertEquals(
                    LocalDateTime.of(2026, 11, 22, 4, 4, 38), node.bootTime().orElseThrow(), json);
            assertTrue(node.slurmdStartTime().isEmpty(), json);
            assertEquals("n1", node.address(), json);
        }
        assertEquals("{\"a\":[1,2]}", parser.parseAll(plain).get(0).raw().get("future_field"));
    }

    @Test
    void unsetTimesAreAbsent() {
        Node node = parser.parseAll("{\"nodes\": [{\"name\": \"n1\", \"state\": [\"IDLE\"], "
                        + "\"boot_time\": {\"set\": false, \"infinite\": false, \"number\": 0}, \"slurmd_start_time\": 0, "
                        + "\"reason\": \"\", \"reason_changed_at\": 0, \"reason_set_by_user\": \"\"}]}")
                .get(0);
        assertTrue(node.bootTime().isEmpty());
        assertTrue(node.slurmdStartTime().isEmpty());
        assertTrue(node.reason().isEmpty());
    }

    @Test
    void epochSecondsAreReadInTheParsersZone() {
        String output = Fixtures.read("slurm-24.05", "show-node-idle.json");
        Node utc = parser.parseAll(output).get(0);
        Node tokyo =
                new JsonNodeParser(ZoneId.of("Asia/Tokyo")).parseAll(output).get(0);
        assertEquals(
                LocalDateTime.of(2026, 11, 22, 4, 14, 2), utc.slurmdStartTime().orElseThrow());
        assertEquals(
                LocalDateTime.of(2026, 11, 22, 13, 14, 2),
                tokyo.slurmdStartTime().orElseThrow());
    }

    @Test
    void garbageIsAnErrorThatQuotesTheInput() {
        ParseException notJson = assertThrows(ParseException.class, () -> parser.parseAll("NodeName=node1 State=IDLE"));
        assertTrue(notJson.getMessage().contains("NodeName=node1 State=IDLE"), notJson.getMessage());
        ParseException noList = assertThrows(ParseException.class, () -> parser.parseAll("{\"jobs\": []}"));
        assertTrue(noList.getMessage().contains("\"nodes\""), noList.getMessage());
        ParseException noName =
                assertThrows(ParseException.class, () -> parser.parseAll("{\"nodes\": [{\"state\": [\"IDLE\"]}]}"));
        assertTrue(noName.getMessage().contains("name"), noName.getMessage());
        ParseException noState = assertThrows(
                ParseException.class,
                () -> parser.parseAll("{\"nodes\": [{\"name\": \"n1\", \"state\": [\"DRAIN\"]}]}"));
        assertTrue(noState.getMessage().contains("bad node state"), noState.getMessage());
        assertTrue(noState.getMessage().contains("\"n1\""), noState.getMessage());
    }

    @Test
    void aNullListIsNoNodes() {
        assertFalse(
                parser.parseAll("{\"nodes\": null, \"errors\": []}").iterator().hasNext());
        assertFalse(parser.parseAll("{\"nodes\": []}").iterator().hasNext());
    }
}
