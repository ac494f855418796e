package org.slurmautoresume.slurm.parse.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.Step;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.JobParser;
import org.slurmautoresume.slurm.parse.ModelValues;
import org.slurmautoresume.slurm.parse.NodeParser;
import org.slurmautoresume.slurm.parse.StepParser;

/**
 * The JSON and the text of one situation parse to the same model. Each JSON fixture is paired
 * with the text of the same situation: 23.11, 24.05, 25.05 and 25.11 with their own release's
 * text, 23.02 with the 22.05 capture it was built from. The fixtures' epoch seconds are the text's local
 * times read as UTC, so the JSON is read in UTC here.
 */
class JsonTextParityTest {

    private static final List<String[]> PAIRS = List.of(
            new String[] {"slurm-23.02", "slurm-22.05"},
            new String[] {"slurm-23.11", "slurm-23.11"},
            new String[] {"slurm-24.05", "slurm-24.05"},
            new String[] {"slurm-25.05", "slurm-25.05"},
            new String[] {"slurm-25.11", "slurm-25.11"});

    private final JsonNodeParser jsonNodes = new JsonNodeParser(ZoneOffset.UTC);
    private final JsonJobParser jsonJobs = new JsonJobParser(ZoneOffset.UTC);
    private final JsonStepParser jsonSteps = new JsonStepParser(ZoneOffset.UTC);

    /** (JSON version, text version, fixture name without extension) for every JSON fixture. */
    static Stream<Arguments> pairs(String prefix) {
        List<Arguments> pairs = new ArrayList<>();
        for (String[] pair : PAIRS) {
            Fixtures.named(pair[0], prefix, ".json").forEach(json -> {
                String base = json.substring(0, json.length() - ".json".length());
                pairs.add(Arguments.of(pair[0], pair[1], base));
            });
        }
        return pairs.stream();
    }

    static Stream<Arguments> nodePairs() {
        return pairs("show-node-");
    }

    static Stream<Arguments> jobPairs() {
        return pairs("show-job-");
    }

    static Stream<Arguments> stepPairs() {
        return pairs("show-step-");
    }

    @ParameterizedTest
    @MethodSource("nodePairs")
    void nodesAreEqual(String jsonVersion, String textVersion, String fixture) {
        Node json = jsonNodes.parseAll(Fixtures.read(jsonVersion, fixture + ".json")).get(0);
        Node text = new NodeParser().parseAll(Fixtures.read(textVersion, fixture + ".txt")).get(0);
        assertEquals(text.name(), json.name());
        assertEquals(text.address(), json.address());
        assertEquals(text.port(), json.port());
        assertEquals(text.state().display(), json.state().display());
        assertEquals(text.state().flags(), json.state().flags());
        assertEquals(text.state().notResponding(), json.state().notResponding());
        assertEquals(text.reason().map(r -> r.text()), json.reason().map(r -> r.text()));
        assertEquals(text.reason().flatMap(r -> r.user()), json.reason().flatMap(r -> r.user()));
        assertEquals(ModelValues.of(text), ModelValues.of(json));
    }

    @ParameterizedTest
    @MethodSource("jobPairs")
    void jobsAreEqual(String jsonVersion, String textVersion, String fixture) {
        Job json = jsonJobs.parseAll(Fixtures.read(jsonVersion, fixture + ".json")).get(0);
        Job text = new JobParser().parseAll(Fixtures.read(textVersion, fixture + ".txt")).get(0);
        assertEquals(text.jobId(), json.jobId());
        assertEquals(text.state(), json.state());
        assertEquals(text.nodeList(), json.nodeList());
        assertEquals(text.numNodes(), json.numNodes());
        assertEquals(text.batchHost(), json.batchHost());
        assertEquals(text.restarts(), json.restarts());
        assertEquals(text.requeue(), json.requeue());
        assertEquals(text.exitCode(), json.exitCode());
        assertEquals(ModelValues.of(text), ModelValues.of(json));
    }

    @ParameterizedTest
    @MethodSource("stepPairs")
    void stepsAreEqual(String jsonVersion, String textVersion, String fixture) {
        List<Step> json = jsonSteps.parseAll(Fixtures.read(jsonVersion, fixture + ".json"));
        List<Step> text = new StepParser().parseAll(Fixtures.read(textVersion, fixture + ".txt"));
        assertEquals(text.stream().map(ModelValues::of).toList(), json.stream().map(ModelValues::of).toList());
    }
}
