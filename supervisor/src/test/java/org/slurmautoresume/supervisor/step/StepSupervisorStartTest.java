package org.slurmautoresume.supervisor.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.slurm.client.OutputFormat;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;

/**
 * Every supervised srun pays for what the supervisor does before starting it: reading the job,
 * the preflight and the budgets' files wait until srun has started, and a short step for the
 * reads it waits on after it ended: the job and the configuration are asked at once
 * (docs/benchmarks.md).
 */
class StepSupervisorStartTest {

    private static final String JOB = "JobId=1 JobName=t UserId=t(4242) GroupId=t(4242) JobState=RUNNING Reason=None"
            + " Requeue=1 Restarts=0 BatchFlag=1 ExitCode=0:0 SubmitTime=2026-01-01T00:00:00"
            + " StartTime=2026-01-01T00:00:00 EndTime=Unknown Partition=debug NodeList=node[1-2] BatchHost=node1"
            + " NumNodes=2 NumCPUs=2 NumTasks=2 WorkDir=/tmp";

    @TempDir
    Path dir;

    @Test
    void theFirstSrunStartsBeforeTheJobIsRead() throws Exception {
        Path started = dir.resolve("srun-started");
        List<Boolean> stepStartedAtJobRead = new CopyOnWriteArrayList<>();
        CommandRunner runner = mock(CommandRunner.class);
        when(runner.run(any())).thenAnswer(invocation -> {
            CommandRequest request = invocation.getArgument(0);
            if (request.argv().equals(List.of("scontrol", "-o", "show", "job", "1"))) {
                // Before the fix the step could not start until this returned: it would wait in vain.
                stepStartedAtJobRead.add(appears(started, Duration.ofSeconds(10)));
                return new CommandResult(request, 0, JOB + "\n", "", false, Duration.ZERO);
            }
            return new CommandResult(request, 1, "", "not part of this test", false, Duration.ZERO);
        });
        StepSupervisor supervisor = supervisorOfJob1(runner);

        int status = supervisor.run(List.of("/bin/sh", "-c", "touch \"$0\"", started.toString()));

        assertEquals(0, status);
        assertEquals(List.of(true), stepStartedAtJobRead);
    }

    @Test
    void theJobAndTheClusterConfigurationAreAskedAtOnceNotOneAfterTheOther() throws Exception {
        CountDownLatch configAsked = new CountDownLatch(1);
        List<Boolean> configAskedWhileTheJobWasRead = new CopyOnWriteArrayList<>();
        CommandRunner runner = mock(CommandRunner.class);
        when(runner.run(any())).thenAnswer(invocation -> {
            CommandRequest request = invocation.getArgument(0);
            if (request.argv().equals(List.of("scontrol", "-o", "show", "job", "1"))) {
                // Read one after the other, the configuration would not be asked until this returned.
                configAskedWhileTheJobWasRead.add(configAsked.await(10, TimeUnit.SECONDS));
                return new CommandResult(request, 0, JOB + "\n", "", false, Duration.ZERO);
            }
            if (request.argv().equals(List.of("scontrol", "show", "config"))) {
                configAsked.countDown();
                return new CommandResult(request, 0, "SlurmctldTimeout        = 120 sec\n", "", false, Duration.ZERO);
            }
            return new CommandResult(request, 1, "", "not part of this test", false, Duration.ZERO);
        });
        StepSupervisor supervisor = supervisorOfJob1(runner);

        assertEquals(0, supervisor.run(List.of("/bin/true")));
        assertEquals(List.of(true), configAskedWhileTheJobWasRead);
    }

    /** A supervisor of a step in job 1, reading Slurm through {@code runner}, with no agent and quiet. */
    private StepSupervisor supervisorOfJob1(CommandRunner runner) {
        Map<String, String> env = Map.of(
                "SLURM_JOB_ID",
                "1",
                "USER",
                "tester",
                "TMPDIR",
                dir.toString(),
                "AUTORESUME_AGENT_SOCKET",
                dir.resolve("no-agent.sock").toString());
        return new StepSupervisor(
                new SlurmClient(runner, OutputFormat.TEXT),
                runner,
                SupervisorSettings.fromEnvironment(env),
                env,
                new SupervisorLog(new PrintStream(OutputStream.nullOutputStream()), "1"));
    }

    private static boolean appears(Path file, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!Files.exists(file)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }
}
