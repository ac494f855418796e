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
import org.junit.jupiter.params.provider.MethodSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.SlurmConfig;
import org.slurmautoresume.slurm.model.Step;
import org.slurmautoresume.slurm.parse.json.JsonJobParser;
import org.slurmautoresume.slurm.parse.json.JsonNodeParser;
import org.slurmautoresume.slurm.parse.json.JsonStepParser;

/**
 * Output REALLY captured from Slurm 24.11.5 (Debian trixie, the rootfs cluster of
 * local-cluster/slurm-rootfs.sh; fixtures/slurm-24.11/capture.sh recorded it), read by the same
 * parsers as 22.05's: the fields the product acts on must come out right. The machine's clock
 * was UTC, so the JSON's epoch seconds read in UTC give the text's local times.
 */
class Slurm2411CaptureTest {

    private static final String V2411 = "slurm-24.11";

    private final NodeParser nodes = new NodeParser();
    private final JobParser jobs = new JobParser();
    private final StepParser steps = new StepParser();
    private final JsonNodeParser jsonNodes = new JsonNodeParser(ZoneOffset.UTC);
    private final JsonJobParser jsonJobs = new JsonJobParser(ZoneOffset.UTC);
    private final JsonStepParser jsonSteps = new JsonStepParser(ZoneOffset.UTC);

    static Stream<String> nodeTexts() {
        return Fixtures.named(V2411, "show-node-");
    }

    static Stream<String> jobTexts() {
        return Fixtures.named(V2411, "show-job-");
    }

    static Stream<String> stepTexts() {
        return Fixtures.named(V2411, "show-step-");
    }

    static Stream<String> nodeJsons() {
        return Fixtures.named(V2411, "show-node-", ".json");
    }

    /** Nothing 24.11 prints is lost or merged: the record rebuilt from the fields is the record. */
    @ParameterizedTest
    @MethodSource("nodeTexts")
    void keepsEveryNodeField(String fixture) {
        String output = Fixtures.read(V2411, fixture);
        List<String> records = Fixtures.records(output);
        List<Node> parsed = nodes.parseAll(output);
        assertEquals(records.size(), parsed.size(), fixture);
        for (int i = 0; i < parsed.size(); i++) {
            assertEquals(
                    Fixtures.normalise(records.get(i)),
                    Fixtures.rebuild(parsed.get(i).raw()),
                    fixture);
            assertEquals("24.11.5", parsed.get(i).version().orElseThrow(), fixture);
        }
    }

    @ParameterizedTest
    @MethodSource("jobTexts")
    void keepsEveryJobField(String fixture) {
        String output = Fixtures.read(V2411, fixture);
        List<Job> parsed = jobs.parseAll(output);
        assertEquals(1, parsed.size(), fixture);
        assertEquals(Fixtures.normalise(output), Fixtures.rebuild(parsed.get(0).raw()), fixture);
    }

    @ParameterizedTest
    @MethodSource("stepTexts")
    void keepsEveryStepField(String fixture) {
        String output = Fixtures.read(V2411, fixture);
        List<String> records = Fixtures.records(output).stream()
                .filter(r -> r.startsWith("StepId="))
                .toList();
        List<Step> parsed = steps.parseAll(output);
        assertEquals(records.size(), parsed.size(), fixture);
        for (int i = 0; i < parsed.size(); i++) {
            assertEquals(
                    Fixtures.normalise(records.get(i)),
                    Fixtures.rebuild(parsed.get(i).raw()),
                    fixture);
        }
    }

    @Test
    void readsNodeStateReasonAndGres() {
        Node idle = nodes.parseAll(Fixtures.read(V2411, "show-node-idle.txt")).get(0);
        assertEquals("node2", idle.name());
        assertEquals("IDLE", idle.state().display());
        assertTrue(idle.state().isSchedulable());
        assertTrue(idle.reason().isEmpty());
        assertTrue(idle.gres().isEmpty(), "Gres=(null) is no GRES");
        assertEquals(27002, idle.port().getAsInt());
        assertEquals(
                LocalDateTime.of(2026, 11, 24, 23, 50, 34),
                idle.slurmdStartTime().orElseThrow());

        Node mixedFail =
                nodes.parseAll(Fixtures.read(V2411, "show-node-mixed-fail.txt")).get(0);
        assertEquals("MIXED+FAIL", mixedFail.state().display());
        assertTrue(mixedFail.state().isFail());
        assertTrue(mixedFail.reason().orElseThrow().isAction("Replace"));
        assertEquals("root", mixedFail.reason().orElseThrow().user().orElseThrow());

        Node idleFail =
                nodes.parseAll(Fixtures.read(V2411, "show-node-idle-fail.txt")).get(0);
        assertEquals("IDLE+FAIL", idleFail.state().display());
        assertTrue(idleFail.reason().orElseThrow().isAction("Replace"));

        Node drain =
                nodes.parseAll(Fixtures.read(V2411, "show-node-idle-drain.txt")).get(0);
        assertTrue(drain.state().isDrain());
        assertEquals("bad gpu count=7 of 8", drain.reason().orElseThrow().text());

        List<Node> all = nodes.parseAll(Fixtures.read(V2411, "show-node-all.txt"));
        assertEquals(List.of("node1", "node2"), all.stream().map(Node::name).toList());
        assertEquals(
                List.of("MIXED", "MIXED"),
                all.stream().map(n -> n.state().display()).toList());
    }

    @Test
    void readsJobStateNodesAndBatchHost() {
        Job running = jobs.parse(Fixtures.read(V2411, "show-job-running.txt").strip());
        assertEquals("2", running.jobId());
        assertEquals(JobState.RUNNING, running.state());
        assertEquals("node[1-2]", running.nodeList());
        assertEquals(2, running.numNodes());
        assertEquals("node1", running.batchScriptHost().orElseThrow());
        assertEquals("artest", running.userName());
        assertEquals(1001, running.userId().getAsInt());
        assertTrue(running.requeue());

        Job failed = jobs.parse(Fixtures.read(V2411, "show-job-failed.txt").strip());
        assertEquals(JobState.FAILED, failed.state());
        assertEquals(3, failed.exitCode().orElseThrow().status());
        assertEquals(
                JobState.COMPLETED,
                jobs.parse(Fixtures.read(V2411, "show-job-completed.txt").strip())
                        .state());
        assertEquals(
                JobState.CANCELLED,
                jobs.parse(Fixtures.read(V2411, "show-job-cancelled.txt").strip())
                        .state());
    }

    @Test
    void readsStepIdsAndNodes() {
        List<Step> multi = steps.parseAll(Fixtures.read(V2411, "show-step-job-multi.txt"));
        assertEquals(
                List.of("2.batch", "2.0", "2.1"),
                multi.stream().map(Step::fullId).toList());
        Step twoNodes = multi.get(2);
        assertEquals("node[1-2]", twoNodes.nodeList());
        assertEquals(2, twoNodes.numNodes().getAsInt());
        assertEquals("vm", twoNodes.srunHost().orElseThrow());
        assertEquals(
                multi.get(2),
                steps.parseAll(Fixtures.read(V2411, "show-step-multinode.txt")).get(0));

        // A step waiting for resources is listed as JOB.TDB, state PENDING, with the nodes it asked for.
        List<Step> pending = steps.parseAll(Fixtures.read(V2411, "show-step-job-pending-step.txt"));
        assertEquals(
                List.of("1.batch", "1.0", "1.TDB"),
                pending.stream().map(Step::fullId).toList());
        assertEquals("PENDING", pending.get(2).state());
        assertTrue(pending.get(2).startTime().isEmpty());

        assertTrue(steps.parseAll(Fixtures.read(V2411, "show-step-none.txt")).isEmpty());
    }

    @Test
    void readsTheConfigurationTheProductChecks() {
        SlurmConfig config = new ConfigParser().parse(Fixtures.read(V2411, "show-config.txt"));
        assertEquals(300, config.seconds("SlurmdTimeout").getAsInt());
        assertTrue(config.get("PrologFlags").isEmpty(), "PrologFlags = (null)");
        assertFalse(config.listContains("PrologFlags", "Contain"));
        assertTrue(config.keepsNoAccounting());
        assertTrue(config.listContains("SchedulerParameters", "permit_job_expansion"));
        assertEquals("autoresume2411", config.get("ClusterName").orElseThrow());
        assertEquals("24.11.5", config.get("SLURM_VERSION").orElseThrow());
    }

    /** The --json form (data_parser v0.0.42, 24.11's default) gives what the text gives. */
    @ParameterizedTest
    @MethodSource("nodeJsons")
    void jsonNodesMatchText(String fixture) {
        List<Node> fromJson = jsonNodes.parseAll(Fixtures.read(V2411, fixture));
        List<Node> fromText = nodes.parseAll(Fixtures.read(V2411, fixture.replace(".json", ".txt")));
        assertEquals(fromText.size(), fromJson.size(), fixture);
        for (int i = 0; i < fromText.size(); i++) {
            Node text = fromText.get(i);
            Node json = fromJson.get(i);
            assertEquals(text.name(), json.name(), fixture);
            assertEquals(text.state().display(), json.state().display(), fixture);
            assertEquals(text.reason().map(r -> r.text()), json.reason().map(r -> r.text()), fixture);
            assertEquals(text.gres(), json.gres(), fixture);
            assertEquals(text.port(), json.port(), fixture);
            assertEquals(text.slurmdStartTime(), json.slurmdStartTime(), fixture);
            assertEquals(text.activeFeatures(), json.activeFeatures(), fixture);
        }
    }

    @Test
    void jsonJobsAndStepsMatchText() {
        for (String name : List.of("show-job-running", "show-job-completed", "show-job-failed")) {
            Job text = jobs.parse(Fixtures.read(V2411, name + ".txt").strip());
            Job json = jsonJobs.parseAll(Fixtures.read(V2411, name + ".json")).get(0);
            assertEquals(text.state(), json.state(), name);
            assertEquals(text.nodeList(), json.nodeList(), name);
            assertEquals(text.numNodes(), json.numNodes(), name);
            assertEquals(text.batchScriptHost(), json.batchScriptHost(), name);
            assertEquals(text.exitCode(), json.exitCode(), name);
            // What callers decide on, which raw() names differently in each format.
            assertEquals("OK", text.overSubscribe(), name);
            assertEquals(text.overSubscribe(), json.overSubscribe(), name);
            assertTrue(text.submitTime().isPresent(), name);
            assertEquals(text.submitTime(), json.submitTime(), name);
            assertEquals(text.resizeTime(), json.resizeTime(), name);
            assertEquals(text.dependency(), json.dependency(), name);
            assertEquals(text.licenses(), json.licenses(), name);
            assertEquals(text.arrayJobId(), json.arrayJobId(), name);
            assertEquals(text.hetJobId(), json.hetJobId(), name);
            assertEquals(text.expeditedRequeue(), json.expeditedRequeue(), name);
            assertEquals(text.tres(), json.tres(), name);
            assertEquals(text.tresPer(), json.tresPer(), name);
        }
        List<Step> text = steps.parseAll(Fixtures.read(V2411, "show-step-job-multi.txt"));
        List<Step> json = jsonSteps.parseAll(Fixtures.read(V2411, "show-step-job-multi.json"));
        assertEquals(
                text.stream().map(Step::fullId).toList(),
                json.stream().map(Step::fullId).toList());
        assertEquals(
                text.stream().map(Step::nodeList).toList(),
                json.stream().map(Step::nodeList).toList());
        assertEquals(
                text.stream().map(Step::numNodes).toList(),
                json.stream().map(Step::numNodes).toList());
    }
}
