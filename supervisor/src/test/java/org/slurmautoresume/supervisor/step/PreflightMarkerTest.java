package org.slurmautoresume.supervisor.step;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.JobParser;
import org.slurmautoresume.slurm.parse.json.JsonJobParser;

/**
 * The preflight runs once per job, remembered by a marker named after the job's id and submit
 * time. 23.02 and later are read with --json: the name must carry the submit time there too, or
 * a job id that came round again would find the old job's marker and hear no findings.
 */
class PreflightMarkerTest {

    @Test
    void theTextAndTheJsonOfOneJobNameTheSameMarker() {
        Job text = new JobParser()
                .parse(Fixtures.read("slurm-24.11", "show-job-running.txt").strip());
        Job json = new JsonJobParser(ZoneOffset.UTC)
                .parseAll(Fixtures.read("slurm-24.11", "show-job-running.json"))
                .get(0);
        assertEquals(
                "autoresume-preflight-artest-2-20261124235053", StepSupervisor.preflightMarkerName("artest", text));
        assertEquals(
                StepSupervisor.preflightMarkerName("artest", text), StepSupervisor.preflightMarkerName("artest", json));
    }

    /** A submit time on the minute: the digits keep their seconds, as the text's did. */
    @Test
    void aSubmitTimeOnTheMinuteKeepsItsSeconds() {
        Job job = new JobParser()
                .parse("JobId=7 JobName=x UserId=artest(1001) JobState=RUNNING" + " SubmitTime=2026-11-24T23:50:00");
        assertEquals("autoresume-preflight-artest-7-20261124235000", StepSupervisor.preflightMarkerName("artest", job));
    }

    @Test
    void theDigitsAreThoseOfTheFormatMarkersWereFirstNamedWith() {
        DateTimeFormatter named = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");
        for (LocalDateTime t = LocalDateTime.parse("2019-01-01T00:00:00");
                t.getYear() < 2031;
                t = t.plusSeconds(86_399 + 3_607)) {
            assertEquals(named.format(t), StepSupervisor.digitsOf(t), t.toString());
        }
    }
}
