package org.slurmautoresume.slurm.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetryingCommandRunnerTest {

    private static final CommandRequest REQUEST = CommandRequest.of("scontrol", "show", "node");
    private static final RetryPolicy POLICY = new RetryPolicy(4, Duration.ofMillis(100), Duration.ofMillis(300), true);

    private final CommandRunner delegate = mock(CommandRunner.class);
    private final List<Duration> sleeps = new ArrayList<>();
    private final RetryingCommandRunner runner = new RetryingCommandRunner(delegate, POLICY, sleeps::add);

    private static CommandResult result(int exit, String stderr, boolean timedOut) {
        return new CommandResult(REQUEST, exit, "", stderr, timedOut, Duration.ZERO);
    }

    @Test
    void retriesUnreachableControllerWithGrowingBackoffUntilSuccess() {
        CommandResult down =
                result(1, "slurm_load_node error: Unable to contact slurm controller (connect failure)", false);
        CommandResult ok = result(0, "", false);
        when(delegate.run(any())).thenReturn(down, down, ok);

        assertEquals(ok, runner.run(REQUEST));
        verify(delegate, times(3)).run(REQUEST);
        assertEquals(List.of(Duration.ofMillis(100), Duration.ofMillis(200)), sleeps);
    }

    @Test
    void givesUpAfterMaxAttemptsAndReturnsTheLastFailure() {
        CommandResult timedOut = result(1, "slurm_load_jobs error: Socket timed out on send/recv operation", false);
        when(delegate.run(any())).thenReturn(timedOut);

        assertEquals(timedOut, runner.run(REQUEST));
        verify(delegate, times(4)).run(REQUEST);
        assertEquals(List.of(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(300)), sleeps);
    }

    @Test
    void doesNotRetryAPermanentError() {
        CommandResult invalid = result(1, "slurm_load_jobs error: Invalid job id specified", false);
        when(delegate.run(any())).thenReturn(invalid);

        assertEquals(invalid, runner.run(REQUEST));
        verify(delegate, times(1)).run(REQUEST);
        assertEquals(List.of(), sleeps);
    }

    @Test
    void retriesATimedOutCommandWhenThePolicySaysSo() {
        when(delegate.run(any())).thenReturn(result(-1, "", true), result(0, "", false));
        assertEquals(0, runner.run(REQUEST).exitCode());
        verify(delegate, times(2)).run(REQUEST);
    }

    @Test
    void noRetryPolicyRunsOnce() {
        RetryingCommandRunner once = new RetryingCommandRunner(delegate, RetryPolicy.NONE, sleeps::add);
        when(delegate.run(any())).thenReturn(result(1, "Unable to contact slurm controller", false));
        once.run(REQUEST);
        verify(delegate, times(1)).run(REQUEST);
    }
}
