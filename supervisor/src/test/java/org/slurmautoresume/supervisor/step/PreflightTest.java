package org.slurmautoresume.supervisor.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.SlurmConfig;
import org.slurmautoresume.slurm.parse.ConfigParser;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.JobParser;
import org.slurmautoresume.slurm.parse.JsonRecords;
import org.slurmautoresume.slurm.parse.json.JsonJobParser;

class PreflightTest {

    /** The local cluster's real configuration, as if it kept accounting (it does not: see below). */
    private final SlurmConfig localCluster = withAccounting(
            new ConfigParser().parse(Fixtures.read("slurm-22.05", "show-config.txt")), "accounting_storage/slurmdbd");

    private static SlurmConfig withAccounting(SlurmConfig config, String type) {
        Map<String, String> values = new LinkedHashMap<>(config.values());
        values.put("AccountingStorageType", type);
        return new SlurmConfig(values);
    }

    @Test
    void aClusterWithoutAccountingIsToldThatAJobGrowsOnlyOnce() {
        SlurmConfig recorded = new ConfigParser().parse(Fixtures.read("slurm-22.05", "show-config.txt"));
        assertEquals(
                "accounting_storage/none", recorded.get("AccountingStorageType").orElseThrow(), "test premise");
        List<PreflightFinding> findings = new Preflight().check(recorded, job(EXCLUSIVE_JOB));
        assertEquals(
                List.of("AccountingStorageType"),
                findings.stream().map(PreflightFinding::setting).toList());
        assertTrue(findings.get(0).fix().contains("slurmdbd"), findings.get(0).fix());
    }

    private static Job job(String line) {
        return new JobParser().parse(line);
    }

    private static final String EXCLUSIVE_JOB = "JobId=5 JobName=train UserId=artest(1001) JobState=RUNNING Requeue=1 "
            + "NodeList=node[1-2] NumNodes=2 OverSubscribe=NO";

    @Test
    void theLocalClusterIsReadyForAnExclusiveJob() {
        assertEquals(List.of(), new Preflight().check(localCluster, job(EXCLUSIVE_JOB)));
    }

    @Test
    void missingJobExpansionSaysExactlyWhatToChange() {
        Map<String, String> values = new LinkedHashMap<>(localCluster.values());
        values.put("SchedulerParameters", "bf_continue,defer");
        List<PreflightFinding> findings = new Preflight().check(new SlurmConfig(values), job(EXCLUSIVE_JOB));
        assertEquals(1, findings.size());
        assertTrue(
                findings.get(0).describe().contains("add permit_job_expansion to SchedulerParameters"),
                findings.get(0).describe());
    }

    @Test
    void aSharedAllocationAndGresAreReported() {
        Job shared = new JobParser()
                .parseAll(Fixtures.read("slurm-22.05", "show-job-running.txt"))
                .get(0);
        List<PreflightFinding> findings = new Preflight().check(localCluster, shared);
        assertEquals(
                List.of("exclusive allocation"),
                findings.stream().map(PreflightFinding::setting).toList());
        assertTrue(findings.get(0).fix().contains("--exclusive"));

        Job gpus = job(EXCLUSIVE_JOB + " TresPerNode=gres:gpu:8");
        assertEquals(
                List.of("GRES"),
                new Preflight()
                        .check(localCluster, gpus).stream()
                                .map(PreflightFinding::setting)
                                .toList());
    }

    /** 23.02 and later are read with --json, whose field is {@code shared}: the advice must not get lost there. */
    @Test
    void aSharedAllocationReadFromTheJsonOf2411IsReported() {
        Job shared = new JsonJobParser()
                .parseAll(Fixtures.read("slurm-24.11", "show-job-running.json"))
                .get(0);
        List<PreflightFinding> findings = new Preflight().check(localCluster, shared);
        assertEquals(
                List.of("exclusive allocation"),
                findings.stream().map(PreflightFinding::setting).toList());
        assertTrue(
                findings.get(0).problem().contains("OverSubscribe=OK"),
                findings.get(0).problem());

        Job exclusive = JsonRecords.job("show-job-running.json", "{\"shared\": [\"none\"]}");
        assertEquals(List.of(), new Preflight().check(localCluster, exclusive));
    }

    @Test
    void aJobThatCannotBeRequeuedOnAClusterWithoutRequeueIsReported() {
        Map<String, String> values = new LinkedHashMap<>(localCluster.values());
        values.put("JobRequeue", "0");
        Job noRequeue = job(EXCLUSIVE_JOB.replace("Requeue=1", "Requeue=0"));
        List<PreflightFinding> findings = new Preflight().check(new SlurmConfig(values), noRequeue);
        assertEquals(
                List.of("JobRequeue"),
                findings.stream().map(PreflightFinding::setting).toList());
    }
}
