package org.slurmautoresume.slurm.parse.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
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
 * with the text of the same situation: 23.11, 24.05, 25.05, 25.11 and 26.05 (captured) with their
 * own release's text, 23.02 with the 22.05 capture it was built from. The fixtures' epoch seconds are the text's local
 * times read as UTC, so the JSON is read in UTC here.
 */
class JsonTextParityTest {

    private static final List<String[]> PAIRS = List.of(
            new String[] {"slurm-23.02", "slurm-22.05"},
            new String[] {"slurm-23.11", "slurm-23.11"},
            new String[] {"slurm-24.05", "slurm-24.05"},
            new String[] {"slurm-25.05", "slurm-25.05"},
            new String[] {"slurm-25.11", "slurm-25.11"},
            new String[] {"slurm-26.05", "slurm-26.05"});

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
        Node json = jsonNodes
                .parseAll(Fixtures.read(jsonVersion, fixture + ".json"))
                .get(0);
        Node text = new NodeParser()
                .parseAll(Fixtures.read(textVersion, fixture + ".txt"))
                .get(0);
        assertEquals(text.name(), json.name());
        assertEquals(text.address(), json.address());
        assertEquals(text.port(), json.port());
        assertEquals(text.state().display(), json.state().display());
        assertEquals(text.state().flags(), json.state().flags());
        assertEquals(text.state().notResponding(), json.state().notResponding());
        assertEquals(text.reason().map(r -> r.text()), json.reason().map(r -> r.text()));
        assertEquals(text.reason().flatMap(r -> r.user()), json.reason().flatMap(r -> r.user()));
        assertEquals(text.activeFeatures(), json.activeFeatures());
        assertEquals(ModelValues.of(text), ModelValues.of(json));
    }

    @ParameterizedTest
    @MethodSource("jobPairs")
    void jobsAreEqual(String jsonVersion, String textVersion, String fixture) {
        Job json =
                jsonJobs.parseAll(Fixtures.read(jsonVersion, fixture + ".json")).get(0);
        Job text = new JobParser()
                .parseAll(Fixtures.read(textVersion, fixture + ".txt"))
                .get(0);
        assertEquals(text.jobId(), json.jobId());
        assertEquals(text.state(), json.state());
        assertEquals(text.nodeList(), json.nodeList());
        assertEquals(text.numNodes(), json.numNodes());
        assertEquals(text.batchHost(), json.batchHost());
        assertEquals(text.restarts(), json.restarts());
        assertEquals(text.requeue(), json.requeue());
        assertEquals(text.exitCode(), json.exitCode());
        assertEquals(text.overSubscribe(), json.overSubscribe());
        assertEquals(text.submitTime(), json.submitTime());
        assertEquals(text.resizeTime(), json.resizeTime());
        assertEquals(text.dependency(), json.dependency());
        assertEquals(text.licenses(), json.licenses());
        assertEquals(text.arrayJobId(), json.arrayJobId());
        assertEquals(text.hetJobId(), json.hetJobId());
        assertEquals(text.expeditedRequeue(), json.expeditedRequeue());
        assertEquals(text.tres(), json.tres());
        assertEquals(text.tresPer(), json.tresPer());
        assertEquals(ModelValues.of(text), ModelValues.of(json));
    }

    @ParameterizedTest
    @MethodSource("stepPairs")
    void stepsAreEqual(String jsonVersion, String textVersion, String fixture) {
        List<Step> json = jsonSteps.parseAll(Fixtures.read(jsonVersion, fixture + ".json"));
        List<Step> text = new StepParser().parseAll(Fixtures.read(textVersion, fixture + ".txt"));
        assertEquals(
                text.stream().map(ModelValues::of).toList(),
                json.stream().map(ModelValues::of).toList());
    }

    /**
     * The fields callers decide on, filled in where no fixture fills them: an array task that
     * waits to expand job 12 after a resize, and a het job component, each printed as the text
     * and the JSON (v0.0.39 plain times, v0.0.42 objects) of one record.
     */
    @Test
    void fieldsNoFixtureFillsAgree() {
        String arrayText = "JobId=17 ArrayJobId=16 ArrayTaskId=1 JobName=x UserId=artest(1001) GroupId=artest(1001)"
                + " JobState=PENDING Reason=Dependency Dependency=expand:12(unfulfilled) Requeue=1 Restarts=0"
                + " BatchFlag=1 SubmitTime=2026-11-22T04:15:42 ResizeTime=2026-11-22T04:19:26 Partition=debug"
                + " ReqTRES=cpu=8,node=2,billing=8,gres/gpu=16 AllocTRES=(null) OverSubscribe=USER Licenses=a|b"
                + " Command=/home/artest/x.sh WorkDir=/home/artest ExpeditedRequeue=Yes TresPerNode=gres/gpu:8";
        String arrayJson = """
                {"jobs": [{"job_id": 17, "array_job_id": %s, "name": "x", "user_name": "artest", "user_id": 1001,
                  "job_state": %s, "state_reason": "Dependency", "dependency": "expand:12(unfulfilled)",
                  "requeue": true, "batch_flag": true, "submit_time": %s, "resize_time": %s, "partition": "debug",
                  "tres_req_str": "cpu=8,node=2,billing=8,gres/gpu=16", "tres_alloc_str": "", "shared": ["user"],
                  "licenses": "a|b", "flags": ["EXPEDITED_REQUEUE"], "tres_per_node": "gres/gpu:8",
                  "tres_per_job": "", "het_job_id": %s}]}""";
        Job text = new JobParser().parse(arrayText);
        Job v39 = jsonJobs.parseAll(arrayJson.formatted(
                        "{\"set\": true, \"infinite\": false, \"number\": 16}",
                        "\"PENDING\"",
                        "1795320942",
                        "1795321166",
                        "{\"set\": true, \"infinite\": false, \"number\": 0}"))
                .get(0);
        Job v42 = jsonJobs.parseAll(arrayJson.formatted(
                        "{\"set\": true, \"infinite\": false, \"number\": 16}",
                        "[\"PENDING\"]",
                        "{\"set\": true, \"infinite\": false, \"number\": 1795320942}",
                        "{\"set\": true, \"infinite\": false, \"number\": 1795321166}",
                        "{\"set\": false, \"number\": 0}"))
                .get(0);
        assertEquals(Optional.of("16"), text.arrayJobId());
        assertEquals(Optional.empty(), text.hetJobId());
        assertEquals("USER", text.overSubscribe());
        assertEquals("expand:12(unfulfilled)", text.dependency());
        assertEquals("a|b", text.licenses());
        assertEquals(Optional.of(LocalDateTime.of(2026, 11, 22, 4, 15, 42)), text.submitTime());
        assertEquals(Optional.of(LocalDateTime.of(2026, 11, 22, 4, 19, 26)), text.resizeTime());
        assertTrue(text.expeditedRequeue());
        assertEquals("cpu=8,node=2,billing=8,gres/gpu=16", text.tres(), "the request while nothing is allocated");
        assertEquals(new Job.TresPer("", "gres/gpu:8", "", ""), text.tresPer());
        assertEquals(ModelValues.of(text), ModelValues.of(v39));
        assertEquals(ModelValues.of(text), ModelValues.of(v42));

        Job hetText = new JobParser()
                .parse("JobId=21 HetJobId=20 HetJobOffset=1 JobName=x UserId=artest(1001)"
                        + " JobState=RUNNING Dependency=(null) SubmitTime=2026-11-22T04:15:42 OverSubscribe=NO"
                        + " Licenses=(null) TRES=cpu=1,node=1,billing=1");
        Job hetJson = jsonJobs.parseAll("""
                {"jobs": [{"job_id": 21, "het_job_id": {"set": true, "infinite": false, "number": 20},
                  "het_job_offset": {"set": true, "infinite": false, "number": 1}, "name": "x", "user_name": "artest",
                  "user_id": 1001, "job_state": ["RUNNING"], "dependency": "", "submit_time": 1795320942,
                  "resize_time": 0, "array_job_id": {"set": true, "infinite": false, "number": 0},
                  "shared": ["none"], "licenses": "", "flags": [], "tres_alloc_str": "cpu=1,node=1,billing=1"}]}""").get(0);
        assertEquals(Optional.of("20"), hetText.hetJobId());
        assertEquals("NO", hetText.overSubscribe());
        assertEquals("", hetText.dependency());
        assertEquals(ModelValues.of(hetText), ModelValues.of(hetJson));
    }

    /** A node's features, which spare pools select by: the text's comma list is data_parser's list. */
    @Test
    void activeFeaturesAgree() throws Exception {
        String text = Fixtures.read("slurm-24.11", "show-node-idle.txt")
                .replace("ActiveFeatures=(null)", "ActiveFeatures=hotspare,a100");
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode doc = (ObjectNode) mapper.readTree(Fixtures.read("slurm-24.11", "show-node-idle.json"));
        ((ObjectNode) doc.get("nodes").get(0))
                .putArray("active_features")
                .add("hotspare")
                .add("a100");
        Node fromText = new NodeParser().parseAll(text).get(0);
        Node fromJson = jsonNodes.parseAll(mapper.writeValueAsString(doc)).get(0);
        assertEquals(List.of("hotspare", "a100"), fromText.activeFeatures());
        assertEquals(fromText.activeFeatures(), fromJson.activeFeatures());
        assertEquals(
                List.of(),
                new NodeParser()
                        .parseAll(Fixtures.read("slurm-24.11", "show-node-idle.txt"))
                        .get(0)
                        .activeFeatures(),
                "ActiveFeatures=(null)");
    }
}
