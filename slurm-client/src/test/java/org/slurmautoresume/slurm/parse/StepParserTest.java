package org.slurmautoresume.slurm.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.slurm.model.Step;

class StepParserTest {

    private static final String V22 = "slurm-22.05";
    private final StepParser parser = new StepParser();

    static Stream<Arguments> stepFixtures() {
        return Fixtures.namedInEveryVersion("show-step-");
    }

    @ParameterizedTest
    @MethodSource("stepFixtures")
    void keepsEveryFieldOfEveryRecord(String version, String fixture) {
        String output = Fixtures.read(version, fixture);
        List<Step> steps = parser.parseAll(output);
        List<String> records = Fixtures.records(output).stream()
                .filter(r -> !r.startsWith("No job steps"))
                .toList();
        assertEquals(records.size(), steps.size());
        for (int i = 0; i < steps.size(); i++) {
            assertEquals(
                    Fixtures.normalise(records.get(i)),
                    Fixtures.rebuild(steps.get(i).raw()),
                    fixture);
        }
    }

    @Test
    void readsBatchAndTaskStepsOfOneJob() {
        List<Step> steps = parser.parseAll(Fixtures.read(V22, "show-step-job-multi.txt"));
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
        // the batch step has no srun: "(null):0"
        assertEquals(0, steps.get(0).srunPid().getAsInt());
        assertTrue(steps.get(0).srunHost().isEmpty());
    }

    /** 23.02 prints ContainerID beside Container; a container path must not swallow it. */
    @ParameterizedTest
    @ValueSource(strings = {"slurm-23.11", "slurm-24.05"})
    void readsAContainerStep(String version) {
        Step step = parser.parseAll(Fixtures.read(version, "show-step-container.txt"))
                .get(0);
        assertEquals("21.0", step.fullId());
        assertEquals("/var/lib/oci/bundles/pytorch", step.raw().get("Container"));
        assertEquals("ar-21-0", step.raw().get("ContainerID"));
        assertEquals(2, step.numNodes().getAsInt());
        assertEquals("vm", step.srunHost().orElseThrow());
    }

    @ParameterizedTest
    @ValueSource(strings = {"slurm-23.11", "slurm-24.05"})
    void newerReleasesParseToThe2205Values(String version) {
        List<Step> newer = parser.parseAll(Fixtures.read(version, "show-step-job-multi.txt"));
        List<Step> captured = parser.parseAll(Fixtures.read(V22, "show-step-job-multi.txt"));
        assertEquals(
                captured.stream().map(ModelValues::of).toList(),
                newer.stream().map(ModelValues::of).toList());
    }

    @Test
    void noStepsSentenceIsAnEmptyList() {
        assertEquals(List.of(), parser.parseAll("No job steps in the system\n"));
    }

    @org.junit.jupiter.api.Test
    void aStepWhoseJobPartIsNotAJobIdIsRefused() {
        ParseException e = org.junit.jupiter.api.Assertions.assertThrows(
                ParseException.class, () -> parser.parse("StepId=x;id.0 State=RUNNING"));
        assertTrue(e.getMessage().contains("not a job id"), e.getMessage());
    }

    /** A step's name is the user's: text in it that looks like fields changes no other field. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(
            strings = {
                "x SrunHost:Pid=vm:1 NodeList=node4 State=COMPLETED",
                "x Dist=Block TRES=cpu=64",
                "x\nState=FAILED",
                "x \"Nodes=4\" === StepId=1.0"
            })
    void aStepNameWrittenLikeFieldsChangesNoOtherField(String name) {
        String honest = Fixtures.read(V22, "show-step-multinode.txt").strip();
        Step read = parser.parse(honest);
        Step forged = parser.parse(honest.replace("Name=sleep", "Name=" + name));
        assertEquals(name, forged.name());
        java.util.Map<String, String> others = new java.util.LinkedHashMap<>(forged.raw());
        java.util.Map<String, String> honestOthers = new java.util.LinkedHashMap<>(read.raw());
        others.remove("Name");
        honestOthers.remove("Name");
        assertEquals(honestOthers, others);
    }

    /**
     * 25.11's {@code -d} prints the job's SLUID after TimeLimit; it is a known key, and one written
     * into the name (printed later) stays in the name.
     */
    @Test
    void theSluidIsAKnownKeyThatNoStepNameCanForge() {
        assertTrue(StepParser.KNOWN_KEYS.contains("SLUID"));
        String honest = Fixtures.read("slurm-25.11", "show-step-job-multi-detail.txt")
                .lines()
                .toList()
                .get(1);
        Step step = parser.parse(honest);
        assertEquals("s5XNM87ZHGBC00", step.raw().get("SLUID"));
        assertEquals("2.0", step.fullId());
        Step forged = parser.parse(honest.replace("Name=sleep", "Name=x SLUID=s0000000000000"));
        assertEquals("x SLUID=s0000000000000", forged.name());
        assertEquals("s5XNM87ZHGBC00", forged.raw().get("SLUID"));
    }

    @Test
    void aStepNameHoldingTheKeyPrintedAfterItIsRefused() {
        String honest = Fixtures.read(V22, "show-step-multinode.txt").strip();
        org.junit.jupiter.api.Assertions.assertThrows(
                ParseException.class,
                () -> parser.parse(honest.replace("Name=sleep", "Name=x Network=ib SrunHost:Pid=vm:1")));
    }
}
