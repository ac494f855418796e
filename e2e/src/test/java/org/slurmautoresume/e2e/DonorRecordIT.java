package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.supervisor.recovery.JobResizer;

/**
 * A job grown through a donor leaves nothing behind: the emptied donor's
 * record leaves slurmctld MinJobAge after the merge plus the donor's one-minute limit, not a
 * year later, and accounting holds none of the job's rows open (the donor's post-merge row, which
 * Slurm may leave open, is closed by sacctmgr's runaway fix once slurmctld forgot the donor). Done
 * as the job's owner, the
 * ordinary test user. Slow by nature: it waits for slurmctld's own purge, which runs once a
 * minute. MinJobAge is set to {@link #MIN_JOB_AGE_SECONDS} for the test (the local cluster's is
 * Slurm's default, 300 s, and restored after): the bound is MinJobAge whatever its value, and
 * waiting out the default cost CI five minutes.
 */
@Tag(LocalCluster.CPU_ONLY) // growing a job is job expansion, refused on the GPU shape
class DonorRecordIT {

    /** Short, but far above the 2 s Slurm's documentation gives as the least for a safe purge. */
    private static final int MIN_JOB_AGE_SECONDS = 10;

    private static final Pattern ENDED = Pattern.compile("\\bJobState=(CANCELLED|COMPLETED|FAILED)\\b");
    private static final Pattern MIN_JOB_AGE = Pattern.compile("(?m)^MinJobAge\\s*=\\s*(\\d+) sec");
    /** slurmctld looks for records to purge once a minute (PURGE_JOB_INTERVAL in 22.05). */
    private static final Duration PURGE_INTERVAL = Duration.ofSeconds(60);

    private static LocalCluster cluster;
    private static SlurmTruth truth;
    private static JobResizer resizer;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
        truth = new SlurmTruth(cluster);
        CommandRunner asOwner = cluster::runAsTestUser;
        resizer = new JobResizer(asOwner, new SlurmClient(asOwner), Duration.ofSeconds(10));
    }

    @Test
    void theEmptiedDonorsRecordLeavesSlurmctldWithinMinJobAgeAndAccountingHoldsNoOpenRecord() throws Exception {
        cluster.withMinJobAge(MIN_JOB_AGE_SECONDS, DonorRecordIT::growShrinkAndWatchTheDonorLeave);
    }

    private static void growShrinkAndWatchTheDonorLeave() {
        Matcher age = MIN_JOB_AGE.matcher(
                cluster.run(List.of("scontrol", "show", "config")).stdout());
        assertTrue(age.find(), "no MinJobAge in scontrol show config");
        Duration minJobAge = Duration.ofSeconds(Long.parseLong(age.group(1)));
        assertEquals(Duration.ofSeconds(MIN_JOB_AGE_SECONDS), minJobAge, "slurmctld did not take the short MinJobAge");

        String jobId = cluster.submit(
                "#!/bin/bash\nsleep 600\n",
                List.of("-N2", "-w", "node[2-3]", "--no-kill", "--exclusive", "--job-name=donor-record-it"));
        // Job ids start again at 1 when the cluster's state is wiped, while the accounting database
        // keeps earlier clusters' rows: only rows submitted from this job's submission on are ours.
        LocalDateTime submitted = LocalDateTime.parse(truth.jobField(jobId, "SubmitTime"));
        String donor;
        long merged;
        try {
            // A first start after earlier resizes can take minutes (docs/slurm-behaviour.md).
            cluster.waitForJob(jobId, "to run", Duration.ofSeconds(300), j -> j.state() == JobState.RUNNING);
            resizer.shrink(JobId.parse(jobId), List.of("node3"));
            resizer.grow(JobId.parse(jobId), List.of("node4"));
            merged = System.nanoTime();
            assertEquals("node[2,4]", truth.jobField(jobId, "NodeList"));
            donor = cluster.run(List.of(
                            "squeue",
                            "-h",
                            "-t",
                            "all",
                            "-o",
                            "%A",
                            "--name=" + SlurmControl.donorName(JobId.parse(jobId))))
                    .stdout()
                    .strip();
            assertFalse(donor.isEmpty() || donor.contains("\n"), "one donor record expected, found: " + donor);

            assertEquals("COMPLETED", truth.jobField(donor, "JobState"));
            assertEquals("", truth.jobField(donor, "NodeList"));
            LocalDateTime start = LocalDateTime.parse(truth.jobField(donor, "StartTime"));
            LocalDateTime end = LocalDateTime.parse(truth.jobField(donor, "EndTime"));
            assertFalse(
                    end.isAfter(start.plusMinutes(JobResizer.DONOR_TIME_LIMIT_MINUTES)),
                    "the donor's EndTime " + end + " is more than its short limit after its start " + start);
        } finally {
            cluster.run(List.of("scancel", jobId));
        }
        // With MinJobAge this short, the ended job's own record may be purged before it is seen ended.
        Wait.until("job " + jobId + " to end", Duration.ofSeconds(60), () -> {
            CommandResult show = cluster.run(List.of("scontrol", "-o", "show", "job", jobId));
            boolean gone = !show.succeeded() && show.stderr().contains("Invalid job id");
            return gone || ENDED.matcher(show.stdout()).find() ? Optional.of(true) : Optional.empty();
        });

        Duration bound = minJobAge
                .plusMinutes(JobResizer.DONOR_TIME_LIMIT_MINUTES)
                .plus(PURGE_INTERVAL)
                .plusSeconds(30);
        Duration left = bound.minus(Duration.ofNanos(System.nanoTime() - merged));
        Wait.until("slurmctld to purge donor " + donor + "'s record", left, () -> {
            CommandResult show = cluster.run(List.of("scontrol", "-o", "show", "job", donor));
            return !show.succeeded() && show.stderr().contains("Invalid job id") ? Optional.of(true) : Optional.empty();
        });

        // One row per size the job had (RESIZING, ended) and its last one; the donor's rows. None of
        // the job's may be left open: a RESIZING row without an end is what "stuck" would mean.
        List<String> rows = accountingRows(jobId, donor, submitted);
        assertFalse(rows.isEmpty(), "accounting has no record of job " + jobId);
        List<String> open = rows.stream().filter(DonorRecordIT::isOpen).toList();
        // Slurm's own merge accounting may leave the emptied donor one row open: the record that
        // job_post_resize_acctg starts for a job it has just completed, never ended, when the grant
        // and the merge fall in different seconds (docs/slurm-behaviour.md). It is then a runaway
        // job, which sacctmgr closes once slurmctld has forgotten the donor, as it has here.
        assertTrue(
                open.stream().allMatch(r -> r.startsWith(donor + "|")),
                "an accounting row left open: " + open + "\n" + String.join("\n", rows));
        System.out.println("donor " + donor + "'s accounting: " + (open.isEmpty() ? "closed" : "open " + open));
        if (!open.isEmpty()) {
            CommandResult fixed = cluster.run(List.of("sacctmgr", "-i", "show", "runawayjobs"));
            assertEquals(0, fixed.exitCode(), fixed.stdout() + fixed.stderr());
            rows = accountingRows(jobId, donor, submitted);
            assertEquals(
                    List.of(),
                    rows.stream().filter(DonorRecordIT::isOpen).toList(),
                    "still open after sacctmgr's runaway fix:\n" + fixed.stdout() + String.join("\n", rows));
        }
        String last = rows.stream()
                .filter(r -> r.startsWith(jobId + "|"))
                .reduce((a, b) -> b)
                .orElseThrow();
        assertTrue(last.split("\\|")[1].startsWith("CANCELLED"), "the job's last accounting row: " + last);
    }

    /** The job's and the donor's accounting rows (JobID|State|End|Submit) submitted since {@code submitted}. */
    private static List<String> accountingRows(String jobId, String donor, LocalDateTime submitted) {
        CommandResult sacct = cluster.run(
                List.of("sacct", "-n", "-P", "-D", "-X", "-j", jobId + "," + donor, "-o", "JobID,State,End,Submit"));
        assertEquals(0, sacct.exitCode(), sacct.stderr());
        return sacct.stdout()
                .lines()
                .filter(l -> !l.isBlank())
                .filter(l -> !LocalDateTime.parse(l.split("\\|", -1)[3]).isBefore(submitted))
                .toList();
    }

    private static boolean isOpen(String row) {
        String end = row.split("\\|", -1)[2];
        return end.isEmpty() || end.equals("Unknown");
    }
}
