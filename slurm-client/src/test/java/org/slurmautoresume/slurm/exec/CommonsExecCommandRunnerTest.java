package org.slurmautoresume.slurm.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Runs real small programs: the runner's whole job is the process boundary. */
class CommonsExecCommandRunnerTest {

    private final CommandRunner runner = new CommonsExecCommandRunner();

    @Test
    void capturesStdoutStderrAndExitCode() {
        CommandResult result = runner.run(CommandRequest.of("sh", "-c", "echo out; echo err >&2; exit 3"));
        assertEquals(3, result.exitCode());
        assertEquals("out\n", result.stdout());
        assertEquals("err\n", result.stderr());
        assertFalse(result.timedOut());
        assertFalse(result.succeeded());
    }

    @Test
    void passesArgumentsVerbatimWithoutAShell() {
        String tricky = "a b; rm -rf / $(id) 'q' \"dq\" `x` *";
        CommandResult result = runner.run(CommandRequest.of("printf", "%s", tricky));
        assertEquals(tricky, result.stdout());
    }

    @Test
    void addsEnvironmentVariables() {
        CommandRequest request = new CommandRequest(
                List.of("sh", "-c", "printf %s \"$AR_TEST_VALUE\""),
                Duration.ofSeconds(10),
                Map.of("AR_TEST_VALUE", "x=y z"));
        assertEquals("x=y z", runner.run(request).stdout());
    }

    @Test
    void aRequestWithoutVariablesOfItsOwnPassesThisProcesssEnvironmentOn() {
        String path = System.getenv("PATH");
        CommandResult result = runner.run(CommandRequest.of("sh", "-c", "printf %s \"$PATH\""));
        assertEquals(path, result.stdout());
        CommandResult both = runner.run(new CommandRequest(
                List.of("sh", "-c", "printf '%s|%s' \"$PATH\" \"$AR_TEST_VALUE\""),
                Duration.ofSeconds(10),
                Map.of("AR_TEST_VALUE", "v")));
        assertEquals(path + "|v", both.stdout(), "with a variable of its own, the rest is kept");
    }

    @Test
    void aCancelFromAnotherThreadStopsTheCommandAsATimeoutWould() throws Exception {
        Cancel cancel = new Cancel();
        Thread canceller = new Thread(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                return;
            }
            cancel.cancel();
        });
        canceller.start();
        long start = System.nanoTime();
        CommandResult result =
                runner.run(new CommandRequest(List.of("sleep", "30"), Duration.ofSeconds(60), Map.of()), cancel);
        canceller.join();
        assertTrue(result.timedOut(), "reported as stopped");
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos(), "not the whole 30 s");
    }

    @Test
    void stopsACommandAtItsTimeout() {
        CommandRequest request = new CommandRequest(List.of("sleep", "30"), Duration.ofMillis(300), Map.of());
        long start = System.nanoTime();
        CommandResult result = runner.run(request);
        assertTrue(result.timedOut());
        assertFalse(result.succeeded());
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 20, "timeout was not applied");
    }

    @Test
    void missingProgramIsACommandExceptionThatSaysSo() {
        CommandException e = assertThrows(
                CommandException.class, () -> runner.run(CommandRequest.of("/nonexistent/scontrol", "show", "node")));
        assertTrue(e.programNotFound());
        assertTrue(e.getMessage().contains("/nonexistent/scontrol"), e.getMessage());
    }

    @Test
    void runCheckedNamesTheCommandAndTheTailOfStderr() {
        CommandException e = assertThrows(
                CommandException.class,
                () -> runner.runChecked(
                        CommandRequest.of("sh", "-c", "echo first >&2; echo 'last words' >&2; exit 7")));
        assertTrue(e.getMessage().contains("sh -c"), e.getMessage());
        assertTrue(e.getMessage().contains("status 7"), e.getMessage());
        assertTrue(e.getMessage().contains("last words"), e.getMessage());
    }
}
