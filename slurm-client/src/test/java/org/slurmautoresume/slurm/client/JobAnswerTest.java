package org.slurmautoresume.slurm.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.parse.JsonRecords;

/**
 * Several records are trusted only as members of the asked-for array or het job. 23.02 and
 * later are read with --json, where membership is {@code array_job_id}/{@code het_job_id}
 * (0 outside one) instead of the text's ArrayJobId/HetJobId.
 */
class JobAnswerTest {

    private static Job json(String changes) {
        return JsonRecords.job("show-job-running.json", changes);
    }

    @Test
    void theTasksOfAnArrayReadFromJsonAnswerForIt() {
        List<Job> tasks = List.of(
                json("{\"job_id\": 17, \"array_job_id\": {\"set\": true, \"infinite\": false, \"number\": 16}}"),
                json("{\"job_id\": 16, \"array_job_id\": {\"set\": true, \"infinite\": false, \"number\": 16}}"));
        assertEquals("16", JobAnswer.onlyRecordOf("16", tasks).orElseThrow().jobId());
    }

    @Test
    void theComponentsOfAHetJobReadFromJsonAnswerForIt() {
        List<Job> components = List.of(
                json("{\"job_id\": 20, \"het_job_id\": {\"set\": true, \"infinite\": false, \"number\": 20}}"),
                json("{\"job_id\": 21, \"het_job_id\": {\"set\": true, \"infinite\": false, \"number\": 20}}"));
        assertEquals(
                "20", JobAnswer.onlyRecordOf("20", components).orElseThrow().jobId());
    }

    /** The capture's records hold {@code "number": 0}: no array, no het job, so nothing ties them. */
    @Test
    void aSecondRecordOfNoArrayOrHetJobIsRefused() {
        List<Job> two = List.of(json("{\"job_id\": 16}"), json("{\"job_id\": 99}"));
        SlurmException e = assertThrows(SlurmException.class, () -> JobAnswer.onlyRecordOf("16", two));
        assertEquals(SlurmException.Kind.BAD_OUTPUT, e.kind());
    }
}
