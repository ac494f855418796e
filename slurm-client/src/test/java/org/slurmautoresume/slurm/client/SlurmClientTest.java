package org.slurmautoresume.slurm.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.parse.Fixtures;

/** The client over a mocked runner that answers with recorded scontrol output. */
class SlurmClientTest {

    private static final String V22 = "slurm-22.05";
    private final CommandRunner runner = mock(CommandRunner.class);
    private final SlurmClient slurm = new SlurmClient(runner);

    /**
     * Answers whatever was asked with this output, except {@code scontrol --version}, which a
     * 22.05 scontrol answers: the client asks it once to choose between text and JSON.
     */
    private static org.mockito.stubbing.Answer<CommandResult> answer(int exit, String stdout, String stderr) {
        return invocation -> {
            CommandRequest request = invocation.getArgument(0);
            if (request.argv().contains("--version")) {
                return new CommandResult(request, 0, "slurm-wlm 22.05.8\n", "", false, Duration.ZERO);
            }
            return new CommandResult(request, exit, stdout, stderr, false, Duration.ZERO);
        };
    }

    @Test
    void asksScontrolForOneJobInOneLineFormat() {
        when(runner.run(any())).thenAnswer(answer(0, Fixtures.read(V22, "show-job-running-shrunk-nokill.txt"), ""));
        assertEquals("node[1,3]", slurm.requireJob("6").nodeList());
        ArgumentCaptor<CommandRequest> request = ArgumentCaptor.forClass(CommandRequest.class);
        verify(runner, times(2)).run(request.capture());
        assertEquals(
                List.of(List.of("scontrol", "--version"), List.of("scontrol", "-o", "show", "job", "6")),
                request.getAllValues().stream().map(CommandRequest::argv).toList());
    }

    @Test
    void aSecondRecordThatALineBreakInTheNameForgedMakesTheJobUnreadable() {
        // Line one is all the user's name and reads as a whole job 8 on node[1-4]; the rest of the
        // real record follows under an id the user wrote.
        String real = Fixtures.read(V22, "show-job-running.txt").strip();
        String forged = real.replace("NodeList=node1", "NodeList=node[1-4]");
        String name = forged.substring(forged.indexOf("JobName=") + "JobName=".length()) + "\nJobId=99 JobName=y";
        when(runner.run(any())).thenAnswer(answer(0, real.replace("JobName=timeout", "JobName=" + name) + "\n", ""));
        SlurmException e = assertThrows(SlurmException.class, () -> slurm.job("8"));
        assertEquals(SlurmException.Kind.BAD_OUTPUT, e.kind());
    }

    @Test
    void anArrayJobAnswersWithItsTasksRecords() {
        when(runner.run(any())).thenAnswer(answer(0, Fixtures.read(V22, "show-job-array-running.txt"), ""));
        String arrayId =
                Fixtures.read(V22, "show-job-array-running.txt").replaceAll("(?s).*?ArrayJobId=(\\d+).*", "$1");
        assertTrue(slurm.job(arrayId).isPresent());
    }

    @Test
    void unknownJobIsNotFound() {
        when(runner.run(any())).thenAnswer(answer(1, "", Fixtures.read(V22, "show-job-invalid-id.stderr.txt")));
        assertTrue(slurm.job("987654").isEmpty());
        SlurmException e = assertThrows(SlurmException.class, () -> slurm.requireJob("987654"));
        assertEquals(SlurmException.Kind.NOT_FOUND, e.kind());
        assertTrue(e.getMessage().contains("987654"));
    }

    @Test
    void unknownStepsJobIsAnEmptyList() {
        when(runner.run(any())).thenAnswer(answer(1, "", Fixtures.read(V22, "show-step-invalid-job.stderr.txt")));
        assertEquals(List.of(), slurm.steps("99999"));
    }

    /** 22.05 prints "Node node9 not found" on stdout, exit 1. */
    @Test
    void unknownNodeIsEmpty() {
        when(runner.run(any())).thenAnswer(answer(1, Fixtures.read(V22, "show-node-unknown.error.txt"), ""));
        assertTrue(slurm.node("node9").isEmpty());
    }

    @Test
    void jobIdsAndNodeNamesAreValidatedBeforeAnythingRuns() {
        assertThrows(SlurmException.class, () -> slurm.job("6; rm -rf /"));
        assertThrows(SlurmException.class, () -> slurm.node("node1 --help"));
        assertThrows(org.slurmautoresume.slurm.hostlist.HostlistException.class, () -> slurm.nodes("n[0-999999999]"));
        verify(runner, never()).run(any());
    }

    @Test
    void missingScontrolSaysSlurmIsNotInstalled() {
        when(runner.run(any())).thenThrow(CommandException.cannotStart(CommandRequest.of("scontrol"), null));
        SlurmException e = assertThrows(SlurmException.class, () -> slurm.nodes());
        assertEquals(SlurmException.Kind.UNAVAILABLE, e.kind());
        assertTrue(e.getMessage().contains("installed"), e.getMessage());
    }

    @Test
    void unreachableControllerIsUnavailableAndNamesTheCommand() {
        when(runner.run(any()))
                .thenAnswer(
                        answer(1, "", "slurm_load_node error: Unable to contact slurm controller (connect failure)\n"));
        SlurmException e = assertThrows(SlurmException.class, () -> slurm.nodes());
        assertEquals(SlurmException.Kind.UNAVAILABLE, e.kind());
        assertTrue(e.getMessage().contains("scontrol -o show node"), e.getMessage());
        assertTrue(e.getMessage().contains("Unable to contact slurm controller"), e.getMessage());
    }

    @Test
    void readsTheVersion() {
        when(runner.run(any())).thenAnswer(answer(0, "slurm-wlm 22.05.8\n", ""));
        assertEquals("22.05.8", slurm.version().toString());
    }
}
