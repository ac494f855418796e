package org.slurmautoresume.slurm.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.StepId;

/** Every Slurm write, checked at the runner: the exact argv and timeout, and how failures read. */
class SlurmControlTest {

    /** Records each request and answers with the exit and stderr it is given. */
    private static final class Recorder implements CommandRunner {
        final List<CommandRequest> requests = new ArrayList<>();
        int exit;
        String stderr = "";
        boolean missing;

        @Override
        public CommandResult run(CommandRequest request) {
            requests.add(request);
            if (missing) {
                throw CommandException.cannotStart(request, new java.io.IOException("No such file or directory"));
            }
            return new CommandResult(request, exit, "", stderr, false, Duration.ofMillis(5));
        }

        List<String> argv() {
            assertEquals(1, requests.size(), "one command per write");
            return requests.get(0).argv();
        }
    }

    private final Recorder runner = new Recorder();
    private final SlurmControl control = new SlurmControl(runner);

    @Test
    void marksANodeFailWithTheReplaceReason() {
        WriteResult result = control.mark(NodeMark.of("node2", NodeMark.State.FAIL, NodeMark.Action.REPLACE));
        assertEquals(
                List.of("scontrol", "update", "nodename=node2", "state=fail", "reason=Action:Replace"), runner.argv());
        assertEquals(SlurmControl.NODE_WRITE_TIMEOUT, runner.requests.get(0).timeout());
        assertTrue(result.ok());
        assertEquals("", result.message());
        assertEquals("scontrol update nodename=node2 state=fail reason=Action:Replace", result.command());
    }

    @Test
    void marksDownAndDrainWithTheirReasons() {
        control.mark(NodeMark.of("node3", NodeMark.State.DOWN, NodeMark.Action.REBOOT, "  GPU 2 fell off the bus "));
        control.mark(new NodeMark("node4", NodeMark.State.DRAIN, "health check failed: disk,dcgm"));
        assertEquals(
                List.of(
                        "scontrol",
                        "update",
                        "nodename=node3",
                        "state=down",
                        "reason=Action:Reboot GPU 2 fell off the bus"),
                runner.requests.get(0).argv());
        assertEquals(
                List.of("scontrol", "update", "nodename=node4", "state=drain", "reason=health check failed: disk,dcgm"),
                runner.requests.get(1).argv());
    }

    @Test
    void theReasonTextsOthersReadBackAreFixed() {
        assertEquals("Action:Replace", NodeMark.Action.REPLACE.reason());
        assertEquals("Action:Reboot", NodeMark.Action.REBOOT.reason());
        assertEquals(
                "Action:Replace",
                NodeMark.of("n1", NodeMark.State.FAIL, NodeMark.Action.REPLACE, " ")
                        .reason());
    }

    @Test
    void refusesUnsafeNodeNamesAndEmptyReasonsBeforeRunningAnything() {
        for (String bad : List.of("-h", "node1 node2", "node1;id", "node[1-2]", "", "node\n1")) {
            assertThrows(
                    IllegalArgumentException.class,
                    () -> NodeMark.of(bad, NodeMark.State.FAIL, NodeMark.Action.REPLACE),
                    bad);
            assertThrows(IllegalArgumentException.class, () -> control.resume(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> new NodeMark("node1", NodeMark.State.FAIL, " "));
        assertThrows(IllegalArgumentException.class, () -> control.rebootWhenIdle(List.of(), "Action:Reboot"));
        assertThrows(IllegalArgumentException.class, () -> control.shrinkTo(JobId.parse("5"), List.of()));
        assertTrue(runner.requests.isEmpty());
    }

    @Test
    void resumesANode() {
        control.resume("node2");
        assertEquals(List.of("scontrol", "update", "nodename=node2", "state=resume"), runner.argv());
    }

    @Test
    void rebootsAllNodesInOneCommand() {
        control.rebootWhenIdle(List.of("node1", "node2", "node4"), "Action:Reboot");
        assertEquals(
                List.of("scontrol", "reboot", "ASAP", "nextstate=RESUME", "reason=Action:Reboot", "node[1-2,4]"),
                runner.argv());
    }

    @Test
    void requeuesAndCancelsJobsAndSteps() {
        control.requeue(JobId.parse("123+1"));
        control.cancel(JobId.parse("77_3"));
        control.cancel(StepId.parse("77.0"));
        control.cancel(JobId.parse("78"), Duration.ofSeconds(60));
        assertEquals(
                List.of(
                        List.of("scontrol", "requeue", "123+1"),
                        List.of("scancel", "77_3"),
                        List.of("scancel", "77.0"),
                        List.of("scancel", "78")),
                runner.requests.stream().map(CommandRequest::argv).toList());
        assertEquals(
                List.of(
                        SlurmControl.JOB_WRITE_TIMEOUT,
                        SlurmControl.NODE_WRITE_TIMEOUT,
                        SlurmControl.JOB_WRITE_TIMEOUT,
                        Duration.ofSeconds(60)),
                runner.requests.stream().map(CommandRequest::timeout).toList());
    }

    @Test
    void jobResizesRunWithoutSlurmJobidSoScontrolWritesNoResizeScripts() {
        JobId job = JobId.parse("12");
        control.shrinkTo(job, List.of("node1", "node3"));
        control.giveAwayNodes(JobId.parse("13"));
        control.takeAllNodes(job);
        assertEquals(
                List.of(
                        List.of("env", "-u", "SLURM_JOBID", "scontrol", "update", "jobid=12", "NodeList=node[1,3]"),
                        List.of("env", "-u", "SLURM_JOBID", "scontrol", "update", "jobid=13", "NumNodes=0"),
                        List.of("env", "-u", "SLURM_JOBID", "scontrol", "update", "jobid=12", "NumNodes=ALL")),
                runner.requests.stream().map(CommandRequest::argv).toList());
    }

    @Test
    void shortensAJobsTimeLimitInWholeMinutesOnly() {
        control.shortenTimeLimit(JobId.parse("13"), 1);
        assertEquals(List.of("scontrol", "update", "jobid=13", "TimeLimit=1"), runner.argv());
        assertThrows(IllegalArgumentException.class, () -> control.shortenTimeLimit(JobId.parse("13"), 0));
    }

    @Test
    void allocatesAnExpansionDonorNamedForTheJob() {
        control.allocateExpansionDonor(JobId.parse("12"), List.of("node3", "node4"), "batch", Duration.ofSeconds(90));
        control.allocateExpansionDonor(JobId.parse("12"), List.of("node3"), "", Duration.ofSeconds(90));
        assertEquals(
                List.of(
                        "salloc",
                        "--no-shell",
                        "-N2",
                        "-w",
                        "node[3-4]",
                        "--dependency=expand:12",
                        "--job-name=autoresume-donor-12",
                        "--partition=batch"),
                runner.requests.get(0).argv());
        assertEquals(
                List.of(
                        "salloc",
                        "--no-shell",
                        "-N1",
                        "-w",
                        "node3",
                        "--dependency=expand:12",
                        "--job-name=autoresume-donor-12"),
                runner.requests.get(1).argv());
        assertEquals(Duration.ofSeconds(90), runner.requests.get(0).timeout());
        assertThrows(
                IllegalArgumentException.class,
                () -> control.allocateExpansionDonor(
                        JobId.parse("12"), List.of("node3"), "--uid=0", Duration.ofSeconds(90)));
    }

    @Test
    void usesTheProgramsItIsGiven() {
        SlurmControl custom = new SlurmControl(
                runner,
                new SlurmControl.Programs(
                        "/opt/slurm/bin/scontrol", "/opt/slurm/bin/scancel", "/opt/slurm/bin/salloc"));
        custom.resume("node1");
        custom.cancel(JobId.parse("5"));
        assertEquals("/opt/slurm/bin/scontrol", runner.requests.get(0).argv().get(0));
        assertEquals("/opt/slurm/bin/scancel", runner.requests.get(1).argv().get(0));
    }

    @Test
    void aFailureNamesTheCommandAndTheTailOfItsStderr() {
        runner.exit = 1;
        runner.stderr = "slurm_update error: Invalid user id\n";
        WriteResult result = control.resume("node2");
        assertFalse(result.ok());
        assertTrue(result.deniedBySlurm());
        assertEquals(
                "`scontrol update nodename=node2 state=resume` exited with status 1:"
                        + " slurm_update error: Invalid user id",
                result.message());
        SlurmException e = assertThrows(SlurmException.class, () -> result.orThrow("resume node2"));
        assertEquals(SlurmException.Kind.COMMAND_FAILED, e.kind());
        assertTrue(e.getMessage().startsWith("could not resume node2: `scontrol update"), e.getMessage());
    }

    @Test
    void aMissingProgramIsAResultNotAnException() {
        runner.missing = true;
        WriteResult result = control.cancel(JobId.parse("9"));
        assertFalse(result.ok());
        assertFalse(result.deniedBySlurm());
        assertTrue(result.message().contains("scancel was not found"), result.message());
        assertTrue(result.asException().programNotFound());
        assertEquals(
                SlurmException.Kind.UNAVAILABLE,
                assertThrows(SlurmException.class, () -> result.orThrow("cancel 9"))
                        .kind());
    }
}
