package org.slurmautoresume.slurm.parse.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.JobParser;
import org.slurmautoresume.slurm.parse.ParseException;

class JsonJobParserTest {

    private final JsonJobParser parser = new JsonJobParser(ZoneOffset.UTC);

    static Stream<Arguments> jobFixtures() {
        return JsonFixtures.named("show-job-");
    }

    @ParameterizedTest
    @MethodSource("jobFixtures")
    void keepsEveryFieldOfEveryRecord(String version, String fixture) {
        String output = Fixtures.read(version, fixture);
        List<JsonNode> records = JsonFixtures.records(output, "jobs");
        List<Job> jobs = parser.parseAll(output);
        assertEquals(records.size(), jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            JsonFixtures.assertRawKeepsEveryField(records.get(i), jobs.get(i).raw(), fixture);
            assertTrue(jobs.get(i).state() != JobState.UNKNOWN, fixture);
            assertEquals("artest", jobs.get(i).userName(), fixture);
            assertEquals(1001, jobs.get(i).userId().getAsInt(), fixture);
        }
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            nullValues = "-",
            value = {
                // fixture | job | state | reason | node list | nodes | batch host | restarts | exit | signal | requeue
                "show-job-running.json | 8 | RUNNING | '' | node1 | 1 | node1 | 0 | 0 | 0 | true",
                "show-job-running-shrunk-nokill.json | 6 | RUNNING | '' | node[1,3] | 2 | node1 | 0 | 0 | 0 | true",
                "show-job-completed.json | 3 | COMPLETED | '' | node[1-2] | 2 | node1 | 0 | 0 | 0 | true",
                "show-job-failed.json | 13 | FAILED | NonZeroExitCode | node1 | 1 | node1 | 0 | 3 | 0 | true",
                "show-job-node-fail.json | 20 | NODE_FAIL | NodeDown | node[3-4] | 2 | node3 | 0 | 0 | 15 | false",
                "show-job-pending-resources.json | 14 | PENDING | Resources | '' | 4 | - | 0 | 0 | 0 | true"
            })
    void readsTheFieldsRecoveryDependsOnInEvery2205Reprint(
            String fixture,
            String jobId,
            JobState state,
            String reason,
            String nodeList,
            int numNodes,
            String batchHost,
            int restarts,
            int exit,
            int signal,
            boolean requeue) {
        for (String version : JsonFixtures.REPRINTS_OF_2205) {
            Job job = parser.parseAll(Fixtures.read(version, fixture)).get(0);
            String where = version + "/" + fixture;
            assertEquals(jobId, job.jobId(), where);
            assertEquals(state, job.state(), where);
            assertEquals(reason, job.reason(), where);
            assertEquals(nodeList, job.nodeList(), where);
            assertEquals(numNodes, job.numNodes(), where);
            assertEquals(batchHost, job.batchHost().orElse(null), where);
            assertEquals(restarts, job.restarts(), where);
            assertEquals(exit, job.exitCode().orElseThrow().status(), where);
            assertEquals(signal, job.exitCode().orElseThrow().signal(), where);
            assertEquals(requeue, job.requeue(), where);
            assertTrue(job.batch(), where);
            assertEquals("debug", job.partition(), where);
        }
    }

    /** v0.0.39 prints the wait(2) status; later versions split it into return code and signal. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "768 | 3 | 0",
                "15 | 0 | 15",
                "0 | 0 | 0",
                "{\"set\": true, \"infinite\": false, \"number\": 33280} | 130 | 0",
                "{\"status\": \"ERROR\", \"return_code\": {\"set\": true, \"number\": 2}, \"signal\": {\"id\": "
                        + "{\"set\": false, \"number\": 0}, \"name\": \"\"}} | 2 | 0",
                "{\"status\": [\"SIGNALED\"], \"return_code\": null, \"signal\": {\"id\": 9, \"name\": \"KILL\"}} | 0 | 9"
            })
    void readsEveryExitCodeShape(String json, int status, int signal) throws Exception {
        Job.ExitCode code =
                JsonJobParser.exitCode(new ObjectMapper().readTree(json)).orElseThrow();
        assertEquals(new Job.ExitCode(status, signal), code);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "\"RUNNING\" | RUNNING",
                "[\"RUNNING\"] | RUNNING",
                "[\"PENDING\", \"REQUEUED\"] | REQUEUED",
                "[\"COMPLETED\", \"COMPLETING\"] | COMPLETING",
                "[\"PENDING\", \"REQUEUE_HOLD\", \"SPECIAL_EXIT\"] | REQUEUE_HOLD",
                "[\"RUNNING\", \"CONFIGURING\", \"POWER_UP_NODE\"] | CONFIGURING"
            })
    void readsTheStateTheTextWouldPrint(String jobState, JobState expected) {
        Job job = parser.parseAll("{\"jobs\": [{\"job_id\": 5, \"job_state\": " + jobState + "}]}")
                .get(0);
        assertEquals(expected, job.state());
    }

    /**
     * {@code shared} lists the one JOB_SHARED name equal to the job's value; the text prints
     * job_share_string() of it, and OK for a value with no name (NO_VAL16, left to the
     * partition), which data_parser prints as an empty list (the 24.11 capture: OverSubscribe=OK).
     */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "[] | OK",
                "[\"none\"] | NO",
                "[\"oversubscribe\"] | YES",
                "[\"user\"] | USER",
                "[\"mcs\"] | MCS",
                "[\"topo\"] | TOPO",
                "\"none\" | NO",
                "null | ''",
                "{} | ''"
            })
    void readsSharedAsTheTextsOverSubscribe(String shared, String overSubscribe) {
        Job job = parser.parseAll(
                        "{\"jobs\": [{\"job_id\": 5, \"job_state\": [\"RUNNING\"], \"shared\": " + shared + "}]}")
                .get(0);
        assertEquals(overSubscribe, job.overSubscribe());
        assertEquals(
                "",
                parser.parseAll("{\"jobs\": [{\"job_id\": 5, \"job_state\": [\"RUNNING\"]}]}")
                        .get(0)
                        .overSubscribe(),
                "not printed: not known");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "data_parser/v0.0.44 | [] | , \"job_resources\": {\"nodes\": {\"whole\": true}} | OK",
                "data_parser/v0.0.45 | [] | , \"job_resources\": {\"nodes\": {\"whole\": true}} | NO",
                "data_parser/v0.0.45 | [] | , \"job_resources\": {\"nodes\": {\"whole\": false}} | OK",
                "data_parser/v0.0.45 | [] | '' | ''",
                "data_parser/v0.0.45 | [\"user\"] | '' | USER"
            })
    void fromDataParserV0045AnEmptySharedListIsReadFromTheAllocation(
            String parser, String shared, String resources, String overSubscribe) {
        String output = "{\"meta\": {\"plugin\": {\"data_parser\": \"" + parser + "\"}}, \"jobs\": [{\"job_id\": 5, "
                + "\"job_state\": [\"RUNNING\"], \"shared\": " + shared + resources + "}]}";
        assertEquals(overSubscribe, this.parser.parseAll(output).get(0).overSubscribe());
    }

    /**
     * 26.05.5 prints "shared": [] for an --exclusive job and for one without, and the text
     * OverSubscribe=NO for both (the partition's OverSubscribe=NO); the allocation tells them apart
     * in the JSON, and the text's Exclusive (NODE, NO) in the text.
     */
    @ParameterizedTest
    @CsvSource({"show-job-exclusive, NO", "show-job-shared, OK"})
    void slurm2605sJobsAreToldApartByTheirAllocation(String fixture, String overSubscribe) {
        Job fromJson =
                parser.parseAll(Fixtures.read("slurm-26.05", fixture + ".json")).get(0);
        Job fromText = new JobParser()
                .parseAll(Fixtures.read("slurm-26.05", fixture + ".txt"))
                .get(0);
        assertEquals(overSubscribe, fromText.overSubscribe());
        assertEquals(overSubscribe, fromJson.overSubscribe());
        assertEquals(fromText.jobId(), fromJson.jobId());
        assertEquals(fromText.nodeList(), fromJson.nodeList());
    }

    @Test
    void aStateDescriptionIsTheReasonWithBlanksMadeUnderscores() {
        Job job = parser.parseAll("{\"jobs\": [{\"job_id\": 5, \"job_state\": [\"PENDING\"], "
                        + "\"state_reason\": \"Resources\", \"state_description\": \"waiting on node4 reboot\"}]}")
                .get(0);
        assertEquals("waiting_on_node4_reboot", job.reason());
    }

    /** slurmctld stores start plus a year as the end of a job without a time limit; the text says Unknown. */
    @Test
    void anUnlimitedRunningJobHasNoEndTimeButAFinishedOneDoes() {
        Job running = parser.parseAll(Fixtures.read("slurm-24.05", "show-job-running-shrunk-nokill.json"))
                .get(0);
        assertTrue(running.endTime().isEmpty());
        assertEquals(
                LocalDateTime.of(2026, 11, 22, 4, 13, 23), running.startTime().orElseThrow());
        Job finished = parser.parseAll(Fixtures.read("slurm-24.05", "show-job-node-fail.json"))
                .get(0);
        assertEquals(
                LocalDateTime.of(2026, 11, 22, 4, 16, 34), finished.endTime().orElseThrow());
        Job limited = parser.parseAll(Fixtures.read("slurm-23.02", "show-job-running.json"))
                .get(0);
        assertEquals(
                LocalDateTime.of(2026, 11, 22, 4, 15, 22), limited.endTime().orElseThrow());
    }

    @Test
    void garbageIsAnErrorThatQuotesTheInput() {
        ParseException notJson = assertThrows(ParseException.class, () -> parser.parseAll("{\"jobs\": [ {"));
        assertTrue(notJson.getMessage().contains("{\"jobs\": [ {"), notJson.getMessage());
        ParseException noId = assertThrows(
                ParseException.class,
                () -> parser.parseAll("{\"jobs\": [{\"name\": \"x\", \"job_state\": \"RUNNING\"}]}"));
        assertTrue(noId.getMessage().contains("job_id"), noId.getMessage());
        assertTrue(noId.getMessage().contains("\"x\""), noId.getMessage());
        ParseException noState = assertThrows(
                ParseException.class, () -> parser.parseAll("{\"jobs\": [{\"job_id\": 5, \"job_state\": []}]}"));
        assertTrue(noState.getMessage().contains("job_state"), noState.getMessage());
    }
}
