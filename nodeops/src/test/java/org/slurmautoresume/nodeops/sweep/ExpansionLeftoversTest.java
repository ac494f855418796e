package org.slurmautoresume.nodeops.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.slurmautoresume.slurm.parse.Records.job;
import static org.slurmautoresume.slurm.parse.Records.jobText;
import static org.slurmautoresume.slurm.parse.Records.jobWith;
import static org.slurmautoresume.slurm.parse.Records.replaceField;

import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.parse.JobParser;
import org.slurmautoresume.slurm.parse.JsonRecords;

/**
 * Which job records count as emptied expansion donors: decided from what slurmctld writes, never
 * from the name. show-job-expansion-donor-emptied.txt is donor 22 after the merge (22.05):
 * COMPLETED, NodeList empty, ResizeTime 2026-11-22T04:19:26, EndTime 2027-11-22T04:18:15.
 */
class ExpansionLeftoversTest {

    private static final LocalDateTime AFTER_MERGE = LocalDateTime.parse("2026-11-22T05:00:00");

    @Test
    void anEmptiedDonorWithItsEndTimeAheadIsReportedUntilThatEndTime() {
        Job emptied = job("show-job-expansion-donor-emptied.txt"); // named no-shell: the name plays no part
        List<SweepPlan.LeftoverJob> found = ExpansionLeftovers.emptiedDonors(List.of(emptied), AFTER_MERGE);
        assertEquals(1, found.size());
        SweepPlan.LeftoverJob leftover = found.get(0);
        assertEquals("emptied-donor-record", leftover.kind());
        assertEquals("22", leftover.jobId());
        assertEquals("artest", leftover.user());
        assertEquals("2027-11-22T04:18:15", leftover.endTime());
        assertTrue(leftover.why().contains("refuses changes to a finished job"), leftover.why());
        assertTrue(
                ExpansionLeftovers.emptiedDonors(List.of(emptied), LocalDateTime.parse("2027-11-22T04:18:16"))
                        .isEmpty(),
                "past its EndTime slurmctld purges it by itself");
    }

    @Test
    void theNameIsMentionedButDecidesNothing() {
        Job named = jobWith("show-job-expansion-donor-emptied.txt", "JobName", "autoresume-donor-21");
        assertTrue(ExpansionLeftovers.emptiedDonors(List.of(named), AFTER_MERGE)
                .get(0)
                .why()
                .contains("named as recovery names donors for job 21"));
        // Named like a donor, but an ordinary finished job: nothing to report.
        Job ordinary = jobWith("show-job-running-expanded.txt", "JobName", "autoresume-donor-21");
        Job finished = new JobParser()
                .parse(replaceField(
                        replaceField(jobText("show-job-running-expanded.txt"), "JobName", "autoresume-donor-21"),
                        "JobState",
                        "COMPLETED"));
        assertTrue(ExpansionLeftovers.emptiedDonors(List.of(ordinary, finished), AFTER_MERGE)
                .isEmpty());
    }

    /** Each field users cannot write, changed alone, takes the record out of the rule. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "JobState=RUNNING",
                "JobState=CANCELLED",
                "NodeList=node2",
                "ResizeTime=None",
                "EndTime=2026-11-22T04:19:26",
                "EndTime=Unknown"
            })
    void aRecordThatDiffersInOneSlurmWrittenFieldIsNotAnEmptiedDonor(String field) {
        String[] kv = field.split("=", 2);
        Job job = jobWith("show-job-expansion-donor-emptied.txt", kv[0], kv[1]);
        assertTrue(ExpansionLeftovers.emptiedDonors(List.of(job), AFTER_MERGE).isEmpty(), field);
    }

    /** 23.02 and later are read with --json: the same donor, from the fields data_parser names its own way. */
    @Test
    void anEmptiedDonorReadFromJsonIsReportedAndAPendingOneIsKnownByItsDependency() {
        Job emptied = JsonRecords.job(
                "show-job-completed.json",
                "{\"job_id\": 22, \"nodes\": \"\","
                        + " \"resize_time\": " + JsonRecords.time("2026-11-22T04:19:26") + ","
                        + " \"end_time\": " + JsonRecords.time("2027-11-22T04:18:15") + "}");
        List<SweepPlan.LeftoverJob> found = ExpansionLeftovers.emptiedDonors(List.of(emptied), AFTER_MERGE);
        assertEquals(
                List.of("22"), found.stream().map(SweepPlan.LeftoverJob::jobId).toList());
        assertTrue(
                found.get(0).why().contains("emptied at 2026-11-22T04:19:26"),
                found.get(0).why());
        Job neverResized = JsonRecords.job(
                "show-job-completed.json",
                "{\"job_id\": 22, \"nodes\": \"\"," + " \"end_time\": " + JsonRecords.time("2027-11-22T04:18:15")
                        + "}");
        assertTrue(
                ExpansionLeftovers.emptiedDonors(List.of(neverResized), AFTER_MERGE)
                        .isEmpty(),
                "resize_time 0");

        Job pending = JsonRecords.job(
                "show-job-running.json",
                "{\"job_id\": 22, \"job_state\": [\"PENDING\"]," + " \"dependency\": \"expand:21(unfulfilled)\"}");
        assertTrue(ExpansionLeftovers.pendingExpansionOfEndedJob(pending, JobId.parse("21"), Optional.empty()));
        assertFalse(ExpansionLeftovers.pendingExpansionOfEndedJob(pending, JobId.parse("2"), Optional.empty()));
    }
}
