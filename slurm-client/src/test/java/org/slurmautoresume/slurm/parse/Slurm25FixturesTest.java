package org.slurmautoresume.slurm.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.Step;
import org.slurmautoresume.slurm.parse.json.JsonJobParser;
import org.slurmautoresume.slurm.parse.json.JsonNodeParser;
import org.slurmautoresume.slurm.parse.json.JsonStepParser;

/**
 * Output CONSTRUCTED from the Slurm 25.05 and 25.11 sources (fixtures/slurm-25.05 and
 * fixtures/slurm-25.11, see their README.md), each a reprint of a situation REALLY captured on
 * 24.11: text and JSON must parse to the capture's model values, and what those releases add
 * (appended system reasons, EXTERNAL and BLOCKED nodes, SubmitLine, SLUID) must read right.
 */
class Slurm25FixturesTest {

    private static final String V2411 = "slurm-24.11";
    private static final String V2505 = "slurm-25.05";
    private static final String V2511 = "slurm-25.11";
    private static final String SLUID = "s5XNM87ZHGBC00";

    private final NodeParser nodes = new NodeParser();
    private final JobParser jobs = new JobParser();
    private final StepParser steps = new StepParser();
    private final JsonNodeParser jsonNodes = new JsonNodeParser(ZoneOffset.UTC);
    private final JsonJobParser jsonJobs = new JsonJobParser(ZoneOffset.UTC);
    private final JsonStepParser jsonSteps = new JsonStepParser(ZoneOffset.UTC);

    /** (newer release, its fixture, the 24.11 capture it reprints), for text and JSON alike. */
    static Stream<Arguments> nodeReprints() {
        return Stream.of(
                Arguments.of(V2505, "show-node-idle", "show-node-idle"),
                Arguments.of(V2505, "show-node-mixed-fail", "show-node-mixed-fail"),
                Arguments.of(V2511, "show-node-idle", "show-node-idle"),
                Arguments.of(V2511, "show-node-mixed-fail", "show-node-mixed-fail"));
    }

    static Stream<Arguments> jobReprints() {
        return Stream.of(
                Arguments.of(V2505, "show-job-running.txt"),
                Arguments.of(V2505, "show-job-running.json"),
                Arguments.of(V2505, "show-job-running-segment.txt"),
                Arguments.of(V2505, "show-job-running-segment.json"),
                Arguments.of(V2511, "show-job-running.txt"),
                Arguments.of(V2511, "show-job-running.json"),
                Arguments.of(V2511, "show-job-running-detail.txt"));
    }

    static Stream<Arguments> stepReprints() {
        return Stream.of(
                Arguments.of(V2505, "show-step-job-multi.txt"),
                Arguments.of(V2505, "show-step-job-multi.json"),
                Arguments.of(V2511, "show-step-job-multi.txt"),
                Arguments.of(V2511, "show-step-job-multi.json"),
                Arguments.of(V2511, "show-step-job-multi-detail.txt"));
    }

    @ParameterizedTest
    @MethodSource("nodeReprints")
    void nodesParseToThe2411CapturesValues(String version, String fixture, String captured) {
        Node text = nodes.parseAll(Fixtures.read(version, fixture + ".txt")).get(0);
        Node json =
                jsonNodes.parseAll(Fixtures.read(version, fixture + ".json")).get(0);
        assertEquals(
                ModelValues.of(
                        nodes.parseAll(Fixtures.read(V2411, captured + ".txt")).get(0)),
                ModelValues.of(text),
                version + " " + fixture);
        assertEquals(
                ModelValues.of(jsonNodes
                        .parseAll(Fixtures.read(V2411, captured + ".json"))
                        .get(0)),
                ModelValues.of(json),
                version + " " + fixture);
        assertEquals(version.substring("slurm-".length()) + ".0", text.version().orElseThrow());
        assertEquals(text.version(), json.version());
    }

    /** Every job fixture is job 2 of the 24.11 capture: what 25.x adds changes no model value. */
    @ParameterizedTest
    @MethodSource("jobReprints")
    void jobsParseToThe2411CapturesValues(String version, String fixture) {
        boolean isJson = fixture.endsWith(".json");
        Job newer = isJson
                ? jsonJobs.parseAll(Fixtures.read(version, fixture)).get(0)
                : jobs.parseAll(Fixtures.read(version, fixture)).get(0);
        Job captured = isJson
                ? jsonJobs.parseAll(Fixtures.read(V2411, "show-job-running.json"))
                        .get(0)
                : jobs.parseAll(Fixtures.read(V2411, "show-job-running.txt")).get(0);
        // 25.11's job 2 was submitted with --requeue=expedite (README), which the 24.11 capture's was not.
        boolean expedited = version.equals("slurm-25.11");
        assertEquals(expedited, newer.expeditedRequeue(), version + " " + fixture);
        assertEquals(
                ModelValues.of(captured),
                ModelValues.of(expedited ? notExpedited(newer) : newer),
                version + " " + fixture);
        assertEquals("multi.sh", newer.name());
    }

    private static Job notExpedited(Job job) {
        return new Job(
                job.jobId(),
                job.name(),
                job.userName(),
                job.userId(),
                job.state(),
                job.reason(),
                job.nodeList(),
                job.numNodes(),
                job.batchHost(),
                job.excludedNodes(),
                job.requiredNodes(),
                job.partition(),
                job.restarts(),
                job.requeue(),
                job.batch(),
                job.exitCode(),
                job.startTime(),
                job.endTime(),
                job.submitTime(),
                job.resizeTime(),
                job.dependency(),
                job.overSubscribe(),
                job.licenses(),
                job.arrayJobId(),
                job.hetJobId(),
                false,
                job.tres(),
                job.tresPer(),
                job.raw());
    }

    @ParameterizedTest
    @MethodSource("stepReprints")
    void stepsParseToThe2411CapturesValues(String version, String fixture) {
        boolean isJson = fixture.endsWith(".json");
        List<Step> newer = isJson
                ? jsonSteps.parseAll(Fixtures.read(version, fixture))
                : steps.parseAll(Fixtures.read(version, fixture));
        List<Step> captured = isJson
                ? jsonSteps.parseAll(Fixtures.read(V2411, "show-step-job-multi.json"))
                : steps.parseAll(Fixtures.read(V2411, "show-step-job-multi.txt"));
        assertEquals(
                captured.stream().map(ModelValues::of).toList(),
                newer.stream().map(ModelValues::of).toList(),
                version + " " + fixture);
    }

    /**
     * An Action:Replace node whose slurmd went silent: slurmctld appends "Not responding" after
     * " : ", with its own user and time. The action must still be recognised, in both formats.
     */
    @ParameterizedTest
    @ValueSource(strings = {V2505, V2511})
    void aSystemReasonAppendedToAnActionKeepsTheAction(String version) {
        for (Node node : List.of(
                nodes.parseAll(Fixtures.read(version, "show-node-down-fail-not-responding.txt"))
                        .get(0),
                jsonNodes
                        .parseAll(Fixtures.read(version, "show-node-down-fail-not-responding.json"))
                        .get(0))) {
            assertEquals("DOWN+FAIL+NOT_RESPONDING", node.state().display());
            assertTrue(node.state().isFail() && node.state().notResponding());
            assertEquals(
                    "Action:Replace : Not responding",
                    node.reason().orElseThrow().text());
            assertTrue(node.reason().orElseThrow().isAction("Replace"));
            assertTrue(node.reason().orElseThrow().startsWith("Action:Replace"));
            assertEquals("root", node.reason().orElseThrow().user().orElseThrow());
            assertEquals(
                    LocalDateTime.of(2026, 11, 24, 23, 56, 10),
                    node.reason().orElseThrow().time().orElseThrow());
        }
    }

    /** 25.05's EXTERNAL node has no slurmd: idle by its base state, yet never a spare. */
    @Test
    void anExternalNodeIsNeverSchedulable() {
        List<Node> external = List.of(
                nodes.parseAll(Fixtures.read(V2505, "show-node-idle-external.txt"))
                        .get(0),
                nodes.parseAll(Fixtures.read(V2511, "show-node-idle-external.txt"))
                        .get(0),
                jsonNodes
                        .parseAll(Fixtures.read(V2511, "show-node-idle-external.json"))
                        .get(0));
        for (Node node : external) {
            assertEquals("node3", node.name());
            assertEquals("IDLE+DYNAMIC_NORM+EXTERNAL", node.state().display());
            assertEquals("IDLE", node.state().base());
            assertFalse(node.state().isSchedulable());
            assertFalse(node.state().isUnhealthy());
            assertTrue(node.version().isEmpty());
            assertTrue(node.slurmdStartTime().isEmpty());
            assertTrue(node.partitions().isEmpty());
            assertEquals(27003, node.port().getAsInt());
        }
        assertEquals("N/A", external.get(0).raw().get("FreeMem"));
    }

    /** 25.11's JSON (v0.0.44) is the first to name BLOCKED: both formats keep the node off the spare list. */
    @Test
    void aBlockedNodeIsNeverSchedulable() {
        for (Node node : List.of(
                nodes.parseAll(Fixtures.read(V2511, "show-node-idle-blocked.txt"))
                        .get(0),
                jsonNodes
                        .parseAll(Fixtures.read(V2511, "show-node-idle-blocked.json"))
                        .get(0))) {
            assertEquals("IDLE+BLOCKED", node.state().display());
            assertFalse(node.state().isSchedulable());
        }
    }

    /** 25.05 prints LicensesAlloc always and SegmentSize after StdOut, a path that must end there. */
    @Test
    void release2505AddsLicensesAllocAndSegmentSize() {
        Job running =
                jobs.parseAll(Fixtures.read(V2505, "show-job-running.txt")).get(0);
        assertEquals("(null)", running.raw().get("LicensesAlloc"));
        assertEquals("(null)", running.raw().get("Network"));
        assertFalse(running.raw().containsKey("SegmentSize"));
        Job segment = jobs.parseAll(Fixtures.read(V2505, "show-job-running-segment.txt"))
                .get(0);
        assertEquals("/home/artest/multi-2.out", segment.raw().get("StdOut"));
        assertEquals("1", segment.raw().get("SegmentSize"));
        Job json = jsonJobs.parseAll(Fixtures.read(V2505, "show-job-running-segment.json"))
                .get(0);
        assertEquals("1", json.raw().get("segment_size"));
        assertEquals("", json.raw().get("licenses_allocated"));
        assertEquals("/home/artest/multi-%j.out", json.raw().get("standard_output"));
        assertEquals("/home/artest/multi-2.out", json.raw().get("stdout_expanded"));
    }

    /** 25.11 adds SubmitLine between Command and WorkDir, ExpeditedRequeue, and with -d the SLUID. */
    @Test
    void release2511AddsSubmitLineExpeditedRequeueAndSluid() {
        Job running =
                jobs.parseAll(Fixtures.read(V2511, "show-job-running.txt")).get(0);
        assertEquals("/home/artest/multi.sh", running.raw().get("Command"));
        assertEquals(
                "sbatch -N2 -n4 --requeue=expedite -o multi-%j.out multi.sh",
                running.raw().get("SubmitLine"));
        assertEquals("/home/artest", running.raw().get("WorkDir"));
        assertEquals("/home/artest/multi-2.out", running.raw().get("StdOut"));
        assertEquals("Yes", running.raw().get("ExpeditedRequeue"));
        assertTrue(running.expeditedRequeue());
        assertFalse(running.raw().containsKey("SLUID"), "SLUID is printed with -d only");

        Job detail = jobs.parseAll(Fixtures.read(V2511, "show-job-running-detail.txt"))
                .get(0);
        assertEquals(SLUID, detail.raw().get("SLUID"));
        assertEquals("multi.sh", detail.raw().get("JobName"));
        assertEquals("0:0", detail.raw().get("DerivedExitCode"));
        assertEquals("node1", detail.raw().get("Nodes"));
        assertEquals("0-2", detail.raw().get("CPU_IDs"));
        assertEquals("node2", detail.raw().get("Nodes#2"));
        assertEquals("0", detail.raw().get("CPU_IDs#2"));

        Job json =
                jsonJobs.parseAll(Fixtures.read(V2511, "show-job-running.json")).get(0);
        assertEquals(running.raw().get("SubmitLine"), json.raw().get("submit_line"));
        assertTrue(
                json.raw().get("step_id").contains("\"sluid\":\"" + SLUID + "\""),
                json.raw().get("step_id"));
        assertTrue(
                json.raw().get("flags").contains("EXPEDITED_REQUEUE"),
                json.raw().get("flags"));
        assertTrue(json.expeditedRequeue());

        for (Step step : steps.parseAll(Fixtures.read(V2511, "show-step-job-multi-detail.txt"))) {
            assertEquals(SLUID, step.raw().get("SLUID"), step.fullId());
            assertEquals("UNLIMITED", step.raw().get("TimeLimit"), step.fullId());
        }
    }
}
