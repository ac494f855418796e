package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.mockito.Mockito.mock;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slurmautoresume.slurm.client.OutputFormat;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.parse.Fixtures;

/** The hand-written writer of {@code nodes --json} against the object mapper it replaced, byte for byte. */
class NodesJsonTest {

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> nodeFixtures() {
        return Fixtures.namedInEveryVersion("show-node");
    }

    @ParameterizedTest(name = "{0}/{1}")
    @MethodSource("nodeFixtures")
    void writesWhatTheObjectMapperWritesForRecordedNodes(String version, String fixture) {
        SlurmClient slurm = new SlurmClient(mock(CommandRunner.class), OutputFormat.TEXT);
        List<NodeView> nodes = slurm.nodesFromText(Fixtures.read(version, fixture)).stream()
                .map(NodeView::of)
                .toList();
        assertFalse(nodes.isEmpty(), fixture);
        assertEquals(Json.write(nodes), NodesJson.write(nodes));
    }

    @Test
    void writesWhatTheObjectMapperWritesForEveryNodeOfEveryFixtureTogether() {
        SlurmClient slurm = new SlurmClient(mock(CommandRunner.class), OutputFormat.TEXT);
        List<NodeView> all = new ArrayList<>();
        nodeFixtures().forEach(arguments -> {
            Object[] a = arguments.get();
            slurm.nodesFromText(Fixtures.read((String) a[0], (String) a[1])).stream()
                    .map(NodeView::of)
                    .forEach(all::add);
        });
        assertEquals(Json.write(all), NodesJson.write(all));
    }

    @Test
    void writesAnEmptyListAsTheObjectMapperDoes() {
        assertEquals(Json.write(List.of()), NodesJson.write(List.of()));
    }

    @Test
    void escapesEveryControlCharacterAsTheObjectMapperDoes() {
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 0x80; c++) {
            all.append(c);
        }
        all.append("\u0080\u00a0\u2028\u2029\ufeff\ud800 lone \udc00 surrogates");
        List<NodeView> nodes = List.of(new NodeView(
                all.toString(),
                "",
                " ",
                0,
                "",
                "",
                List.of("", "\u0000", "\"\\/"),
                false,
                all.toString(),
                "u",
                "t",
                "b",
                "s",
                null,
                ""));
        assertEquals(Json.write(nodes), NodesJson.write(nodes));
    }

    @Test
    void escapesAndNullsAsTheObjectMapperDoes() {
        List<NodeView> nodes = List.of(
                new NodeView(
                        "n\"1\\",
                        null,
                        null,
                        null,
                        "IDLE+DRAIN",
                        "IDLE",
                        List.of(),
                        true,
                        "tab\there, newline\nthere, bell\u0007, \u00e9t\u00e9 \u2603 \ud83d\ude80 </script>",
                        null,
                        null,
                        null,
                        null,
                        List.of(),
                        null),
                new NodeView(
                        "node2",
                        "10.0.0.2",
                        "node2.example",
                        65535,
                        "MIXED+FAIL*",
                        "MIXED",
                        List.of("FAIL", "NOT_RESPONDING"),
                        false,
                        "Action:Replace",
                        "root",
                        "2026-11-22T04:30",
                        "2026-01-01T00:00",
                        "2026-01-01T00:00:01",
                        List.of("debug", "gpu"),
                        "gpu:h100:8(S:0-1)"));
        assertEquals(Json.write(nodes), NodesJson.write(nodes));
    }
}
