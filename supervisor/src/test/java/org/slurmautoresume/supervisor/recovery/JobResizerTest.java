package org.slurmautoresume.supervisor.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mockito.InOrder;
import org.slurmautoresume.slurm.client.OutputFormat;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.parse.Fixtures;

/** The resizer over a mocked runner answering with recorded 22.05 output. */
class JobResizerTest {

    private static final String V22 = "slurm-22.05";
    private final CommandRunner runner = mock(CommandRunner.class);
    private final JobResizer resizer = new JobResizer(
            runner,
            new SlurmClient(runner, "scontrol", Duration.ofSeconds(5), OutputFormat.TEXT),
            Duration.ofSeconds(5));

    private void answer(List<String> argv, int exit, String stdout, String stderr) {
        when(runner.run(argThat(r -> r != null && r.argv().equals(argv))))
                .thenAnswer(inv -> new CommandResult(inv.getArgument(0), exit, stdout, stderr, false, Duration.ZERO));
    }

    private static boolean isScancel(CommandRequest r, String id) {
        return r != null && r.argv().equals(List.of("scancel", id));
    }

    @Test
    void theBatchHostIsNeverDropped() {
        // job 6 runs on node[1,3] with batch host node1
        answer(
                List.of("scontrol", "-o", "show", "job", "6"),
                0,
                Fixtures.read(V22, "show-job-running-shrunk-nokill.txt"),
                "");
        SlurmException e = assertThrows(SlurmException.class, () -> resizer.shrink(JobId.parse("6"), List.of("node1")));
        assertTrue(e.getMessage().contains("batch host"), e.getMessage());
        verify(runner, never()).run(argThat(r -> r != null && r.argv().contains("update")));
    }

    @Test
    void theDonorIsCancelledWhenTheJobDoesNotGrow() {
        answer(
                List.of("scontrol", "-o", "show", "job", "6"),
                0,
                Fixtures.read(V22, "show-job-running-shrunk-nokill.txt"),
                "");
        answer(
                List.of(
                        "salloc",
                        "--no-shell",
                        "-N1",
                        "-w",
                        "node2",
                        "--dependency=expand:6",
                        "--job-name=autoresume-donor-6",
                        "--partition=debug"),
                0,
                "",
                "salloc: Granted job allocation 22\n");
        answer(List.of("scontrol", "update", "jobid=22", "TimeLimit=1"), 0, "", "");
        answer(List.of("env", "-u", "SLURM_JOBID", "scontrol", "update", "jobid=22", "NumNodes=0"), 0, "", "");
        answer(
                List.of("env", "-u", "SLURM_JOBID", "scontrol", "update", "jobid=6", "NumNodes=ALL"),
                1,
                "",
                "Job update not available right now, the DB index is being set, try again in a bit for job 6\n");
        answer(List.of("scancel", "22"), 0, "", "");

        SlurmException e = assertThrows(SlurmException.class, () -> resizer.grow(JobId.parse("6"), List.of("node2")));
        assertTrue(e.getMessage().contains("did not take node2"), e.getMessage());
        verify(runner).run(argThat(r -> isScancel(r, "22")));
    }

    @Test
    void aJobThatGrewDespiteTheExitStatusCounts() {
        // 22.05 answers NumNodes=ALL with exit 1 although the job grew (job 21, recorded).
        growsAfterLooks(2); // still without node2 after the donor was emptied
        answer(
                List.of("env", "-u", "SLURM_JOBID", "scontrol", "update", "jobid=21", "NumNodes=ALL"),
                1,
                "",
                "Job update not available right now, the DB index is being set, try again in a bit for job 21\n");
        answer(
                List.of("scancel", "22"),
                1,
                "",
                "scancel: error: Kill job error on job id 22: Job/step already completing or completed\n");

        assertEquals(
                "node[1-3]", resizer.grow(JobId.parse("21"), List.of("node2")).nodeList());
        verify(runner).run(argThat(r -> r != null && r.argv().contains("NumNodes=ALL")));
        verify(runner).run(argThat(r -> isScancel(r, "22")));
    }

    /**
     * Job 21 shows without node2 for the first {@code looks} reads and with it after; its donor
     * 22 for node2 is granted and emptied.
     */
    private void growsAfterLooks(int looks) {
        String shrunk = Fixtures.read(V22, "show-job-running-shrunk-nokill.txt").replace("JobId=6", "JobId=21");
        String expanded = Fixtures.read(V22, "show-job-running-expanded.txt");
        int[] seen = {0};
        when(runner.run(argThat(r -> r != null && r.argv().equals(List.of("scontrol", "-o", "show", "job", "21")))))
                .thenAnswer(inv -> new CommandResult(
                        inv.getArgument(0), 0, seen[0]++ < looks ? shrunk : expanded, "", false, Duration.ZERO));
        answer(
                List.of(
                        "salloc",
                        "--no-shell",
                        "-N1",
                        "-w",
                        "node2",
                        "--dependency=expand:21",
                        "--job-name=autoresume-donor-21",
                        "--partition=debug"),
                0,
                "",
                "salloc: Granted job allocation 22\n");
        answer(List.of("scontrol", "update", "jobid=22", "TimeLimit=1"), 0, "", "");
        answer(List.of("env", "-u", "SLURM_JOBID", "scontrol", "update", "jobid=22", "NumNodes=0"), 0, "", "");
    }

    @Test
    void anEmptiedDonorThatMovedItsNodesNeedsNoNumNodesAll() {
        // Emptying the donor hands its nodes to the job at once (22.05, seen on the local cluster);
        // NumNodes=ALL would only stall 5 s for a database index.
        growsAfterLooks(1); // node2 has joined as soon as the donor is emptied
        answer(List.of("scancel", "22"), 0, "", "");

        assertEquals(
                "node[1-3]", resizer.grow(JobId.parse("21"), List.of("node2")).nodeList());
        verify(runner, never()).run(argThat(r -> r != null && r.argv().contains("NumNodes=ALL")));
        verify(runner).run(argThat(r -> isScancel(r, "22")));
    }

    @Test
    void theDonorsLimitIsShortenedBeforeItIsEmptiedSoItsRecordLeavesAfterMinJobAge() {
        // Emptied, the donor is COMPLETED with its EndTime unchanged and Slurm refuses any later
        // change of a finished job: the limit must be set while it still runs.
        growsAfterLooks(1);
        answer(List.of("scancel", "22"), 0, "", "");

        resizer.grow(JobId.parse("21"), List.of("node2"));
        InOrder order = inOrder(runner);
        order.verify(runner)
                .run(argThat(r -> r != null
                        && r.argv()
                                .equals(List.of(
                                        "scontrol",
                                        "update",
                                        "jobid=22",
                                        "TimeLimit=" + JobResizer.DONOR_TIME_LIMIT_MINUTES))));
        order.verify(runner).run(argThat(r -> r != null && r.argv().contains("NumNodes=0")));
    }

    @Test
    void aRefusedShorterLimitDoesNotStopTheGrowth() {
        growsAfterLooks(1);
        answer(
                List.of("scontrol", "update", "jobid=22", "TimeLimit=1"),
                1,
                "",
                "slurm_update error: Access/permission denied\n");
        answer(List.of("scancel", "22"), 0, "", "");

        assertEquals(
                "node[1-3]", resizer.grow(JobId.parse("21"), List.of("node2")).nodeList());
    }

    @Test
    void aShrinkRefusedAfterAGrowthWithoutAccountingIsExplainedWhateverSlurmSays() {
        // Seen in CI on 22.05: the refusal read "Unexpected message received", not "DB index".
        growsAfterLooks(1);
        answer(List.of("scancel", "22"), 0, "", "");
        answer(List.of("scontrol", "show", "config"), 0, Fixtures.read(V22, "show-config.txt"), "");
        answer(
                List.of("env", "-u", "SLURM_JOBID", "scontrol", "update", "jobid=21", "NodeList=node[1-2]"),
                1,
                "",
                "Unexpected message received for job 21\n");
        resizer.grow(JobId.parse("21"), List.of("node2"));

        SlurmException e =
                assertThrows(SlurmException.class, () -> resizer.shrink(JobId.parse("21"), List.of("node3")));
        assertTrue(
                e.getMessage()
                        .contains(
                                "Slurm refuses changes to a job that was grown once when it keeps no" + " accounting"),
                e.getMessage());
        assertTrue(e.getMessage().contains("Unexpected message received"), e.getMessage());
    }

    @Test
    void aRefusedShrinkOfAJobNeverGrownIsReportedAsSlurmSaidIt() {
        answer(
                List.of("scontrol", "-o", "show", "job", "21"),
                0,
                Fixtures.read(V22, "show-job-running-expanded.txt"),
                "");
        answer(
                List.of("env", "-u", "SLURM_JOBID", "scontrol", "update", "jobid=21", "NodeList=node[1-2]"),
                1,
                "",
                "Unexpected message received for job 21\n");

        SlurmException e =
                assertThrows(SlurmException.class, () -> resizer.shrink(JobId.parse("21"), List.of("node3")));
        assertTrue(e.getMessage().endsWith("Unexpected message received for job 21"), e.getMessage());
        verify(runner, never()).run(argThat(r -> r != null && r.argv().contains("config")));
    }

    @Test
    void aShrinkRefusedUntilTheJobHasItsAccountingRecordIsAskedAgain() {
        // Seen in CI on 22.05 right after slurmctld's restart: two refusals, then a requeue.
        JobResizer patient = new JobResizer(
                runner,
                new SlurmClient(runner, "scontrol", Duration.ofSeconds(5), OutputFormat.TEXT),
                Duration.ofSeconds(5),
                Duration.ofSeconds(30),
                Duration.ZERO);
        int[] updates = {0};
        List<String> update =
                List.of("env", "-u", "SLURM_JOBID", "scontrol", "update", "jobid=21", "NodeList=node[1-2]");
        when(runner.run(argThat(r -> r != null && r.argv().equals(update)))).thenAnswer(inv -> {
            updates[0]++;
            return updates[0] < 3
                    ? new CommandResult(
                            inv.getArgument(0),
                            1,
                            "",
                            "Job update not available right now, the DB index is being set, try again in a bit\n",
                            false,
                            Duration.ZERO)
                    : new CommandResult(inv.getArgument(0), 0, "", "", false, Duration.ZERO);
        });
        when(runner.run(argThat(r -> r != null && r.argv().equals(List.of("scontrol", "-o", "show", "job", "21")))))
                .thenAnswer(inv -> new CommandResult(
                        inv.getArgument(0),
                        0,
                        updates[0] < 3
                                ? Fixtures.read(V22, "show-job-running-expanded.txt")
                                : Fixtures.read(V22, "show-job-running-expanded.txt")
                                        .replace(" NodeList=node[1-3]", " NodeList=node[1-2]"),
                        "",
                        false,
                        Duration.ZERO));
        answer(
                List.of("scontrol", "show", "config"),
                0,
                Fixtures.read(V22, "show-config.txt").replace("accounting_storage/none", "accounting_storage/slurmdbd"),
                "");

        assertEquals(
                "node[1-2]", patient.shrink(JobId.parse("21"), List.of("node3")).nodeList());
        assertEquals(3, updates[0]);
    }

    @Test
    void noAllocationIsATimeoutAndNamesTheNodes() {
        answer(
                List.of("scontrol", "-o", "show", "job", "6"),
                0,
                Fixtures.read(V22, "show-job-running-shrunk-nokill.txt"),
                "");
        when(runner.run(argThat(r -> r != null && r.argv().get(0).equals("salloc"))))
                .thenAnswer(inv -> new CommandResult(
                        inv.getArgument(0), -1, "", "salloc: Pending job allocation 30\n", true, Duration.ZERO));
        answer(List.of("scancel", "30"), 0, "", "");
        SlurmException e = assertThrows(SlurmException.class, () -> resizer.grow(JobId.parse("6"), List.of("node2")));
        assertEquals(SlurmException.Kind.TIMEOUT, e.kind());
        assertTrue(e.getMessage().contains("node2"), e.getMessage());
        verify(runner).run(argThat(r -> isScancel(r, "30")));
    }

    @Test
    void badNodeNamesNeverReachSlurm() {
        assertThrows(SlurmException.class, () -> resizer.grow(JobId.parse("6"), List.of("node2;reboot")));
        verify(runner, never()).run(argThat(r -> r != null));
    }
}
