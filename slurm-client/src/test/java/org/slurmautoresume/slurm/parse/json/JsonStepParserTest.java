package org.slurmautoresume.slurm.parse.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.slurm.model.Step;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.ParseException;

class JsonStepParserTest {

    private final JsonStepParser parser = new JsonStepParser(ZoneOffset.UTC);

    static Stream<Arguments> stepFixtures() {
        return JsonFixtures.named("show-step-");
    }

    @ParameterizedTest
    @MethodSource("stepFixtures")
    void keepsEveryFieldOfEveryRecord(String version, String fixture) {
        String output = Fixtures.read(version, fixture);
        List<JsonNode> records = JsonFixtures.records(output, "steps");
        List<Step> steps = parser.parseAll(output);
        assertEquals(records.size(), steps.size());
        for (int i = 0; i < steps.size(); i++) {
            JsonFixtures.assertRawKeepsEveryField(records.get(i), steps.get(i).raw(), fixture);
        }
    }

    /** The step id is an object in v0.0.39 (23.02) and a string from v0.0.40 (23.11) on. */
    @ParameterizedTest
    @ValueSource(strings = {"slurm-23.02", "slurm-23.11", "slurm-24.05"})
    void readsBatchAndTaskStepsOfOneJob(String version) {
        List<Step> steps = parser.parseAll(Fixtures.read(version, "show-step-job-multi.json"));
        assertEquals(
                List.of("9.batch", "9.0", "9.1"),
                steps.stream().map(Step::fullId).toList());
        Step second = steps.get(2);
        assertEquals("node[2-3]", second.nodeList());
        assertEquals(2, second.numNodes().getAsInt());
        assertEquals(2, second.numTasks().getAsInt());
        assertEquals("RUNNING", second.state());
        assertEquals("sleep", second.name());
        assertEquals("vm", second.srunHost().orElseThrow());
        assertEquals(14804, second.srunPid().getAsInt());
        assertEquals(
                LocalDateTime.of(2026, 11, 22, 4, 14, 37), second.startTime().orElseThrow());
        assertTrue(steps.get(0).srunHost().isEmpty());
        assertEquals(0, steps.get(0).srunPid().getAsInt());
    }

    @Test
    void keepsTheContainerOfAStep() {
        Step step = parser.parseAll(Fixtures.read("slurm-24.05", "show-step-container.json"))
                .get(0);
        assertEquals("21.0", step.fullId());
        assertEquals("/var/lib/oci/bundles/pytorch", step.raw().get("container"));
        assertEquals("ar-21-0", step.raw().get("container_id"));
    }

    @Test
    void aStepIdThatIsNotJobDotStepIsAnError() {
        ParseException e = assertThrows(
                ParseException.class,
                () -> parser.parseAll("{\"steps\": [{\"id\": \"9\", \"state\": [\"RUNNING\"]}]}"));
        assertTrue(e.getMessage().contains("JOB.STEP"), e.getMessage());
        assertEquals(List.of(), parser.parseAll("{\"steps\": []}"));
    }
}
