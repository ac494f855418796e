package org.slurmautoresume.slurm.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StandbyWatchTest {

    private static final CommandRequest SHOW_JOB = CommandRequest.of("scontrol", "-o", "show", "job", "42");
    private static final Duration SLOW = Duration.ofMillis(50);
    private static final Duration EVERY = Duration.ofMillis(20);

    /**
     * A Slurm command that sleeps as Slurm's client does on a standby backup (until stopped, at
     * most {@code sleepsMs}) on its first {@code sleepy} runs, and answers at once after.
     */
    private static final class SleepingClient implements CommandRunner {
        final List<CommandRequest> runs = new ArrayList<>();
        private final int sleepy;
        private final long sleepsMs;

        SleepingClient(int sleepy, long sleepsMs) {
            this.sleepy = sleepy;
            this.sleepsMs = sleepsMs;
        }

        @Override
        public CommandResult run(CommandRequest request) {
            return run(request, new Cancel());
        }

        @Override
        public CommandResult run(CommandRequest request, Cancel cancel) {
            int n;
            synchronized (runs) {
                runs.add(request);
                n = runs.size();
            }
            if (n <= sleepy) {
                CountDownLatch stopped = new CountDownLatch(1);
                cancel.onCancel(stopped::countDown);
                try {
                    if (stopped.await(sleepsMs, TimeUnit.MILLISECONDS)) {
                        return new CommandResult(request, 137, "", "", true, Duration.ZERO);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return new CommandResult(request, 0, "JobId=42 JobState=RUNNING", "", false, Duration.ZERO);
        }
    }

    /** Answers pings from a script; the last answer repeats. */
    private static StandbyWatch.ControllerProbe probe(Boolean... answers) {
        Deque<Boolean> script = new ArrayDeque<>(List.of(answers));
        return () -> Optional.of(script.size() > 1 ? script.poll() : script.peek());
    }

    private static StandbyWatch watch(CommandRunner client, StandbyWatch.ControllerProbe probe) {
        return new StandbyWatch(client, probe, SLOW, EVERY, StandbyWatch::daemonTimer);
    }

    @Test
    void aCommandSleepingOnAStandbyBackupRunsAnewOnceThePrimaryAnswers() {
        SleepingClient client = new SleepingClient(1, 60_000);
        long start = System.nanoTime();

        CommandResult result = watch(client, probe(false, false, true)).run(SHOW_JOB);

        assertTrue(result.succeeded(), result.toString());
        assertEquals(2, client.runs.size(), "stopped once the primary answered, then run anew");
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos(), "not the client's whole sleep");
    }

    @Test
    void aCommandThatIsOnlySlowIsNeverStopped() {
        SleepingClient client = new SleepingClient(1, 300);

        CommandResult result = watch(client, probe(true)).run(SHOW_JOB);

        assertTrue(result.succeeded(), result.toString());
        assertEquals(1, client.runs.size(), "the primary answered all along: left to finish");
    }

    @Test
    void aPrimaryStillDownLeavesTheCommandToItsOwnEnd() {
        SleepingClient client = new SleepingClient(1, 300);

        CommandResult result = watch(client, probe(false)).run(SHOW_JOB);

        assertTrue(result.succeeded());
        assertEquals(1, client.runs.size());
    }

    @Test
    void aFlappingPrimaryRestartsTheCommandAFewTimesOnly() {
        SleepingClient client = new SleepingClient(100, 60_000);
        boolean[] up = {true}; // each run pings DOWN first, then UP
        StandbyWatch.ControllerProbe flapping = () -> Optional.of(up[0] = !up[0]);

        CommandResult result = watch(client, flapping).run(SHOW_JOB);

        assertTrue(result.timedOut(), "the last run was stopped too, and reads as timed out");
        assertEquals(4, client.runs.size(), "the first run and at most three anew");
    }

    @Test
    void onlySlurmClientsThatReturnByThemselvesAreWatched() {
        assertTrue(StandbyWatch.watched(List.of("scontrol", "-o", "show", "job", "42")));
        assertTrue(StandbyWatch.watched(List.of("/usr/bin/scancel", "42.0")));
        assertTrue(StandbyWatch.watched(
                List.of("env", "-u", "SLURM_JOBID", "scontrol", "update", "jobid=42", "NodeList=node1")));
        assertFalse(StandbyWatch.watched(List.of("salloc", "-N1", "--no-shell")));
        assertFalse(StandbyWatch.watched(List.of("srun", "true")));
        assertFalse(StandbyWatch.watched(List.of("nvidia-smi")));
        assertFalse(StandbyWatch.watched(List.of("env", "-u", "SLURM_JOBID", "salloc", "-N1")));
    }

    @Test
    void thePrimarysLineOfScontrolPingIsRead() {
        assertEquals(
                Optional.of(false),
                StandbyWatch.primaryUp("Slurmctld(primary) at arctld1 is DOWN\nSlurmctld(backup) at arctld2 is UP\n"));
        assertEquals(
                Optional.of(true),
                StandbyWatch.primaryUp("Slurmctld(primary) at arctld1 is UP\nSlurmctld(backup) at arctld2 is UP\n"));
        assertEquals(
                Optional.of(false),
                StandbyWatch.primaryUp("Slurmctld(primary) at vm is DOWN\n"
                        + "*****************************************\n** RESTORE SLURMCTLD DAEMON TO SERVICE **\n"));
        assertEquals(Optional.empty(), StandbyWatch.primaryUp("scontrol: error: something else\n"));
    }

    /** A fake Slurm for the real probe: scontrol ping's text, and whether the quick query answers in time. */
    private static CommandRunner controllers(String ping, boolean queryAnswers, List<List<String>> asked) {
        return request -> {
            asked.add(request.argv());
            if (request.argv().equals(List.of("scontrol", "ping"))) {
                return new CommandResult(request, 0, ping, "", false, Duration.ZERO);
            }
            assertEquals(Duration.ofSeconds(2), request.timeout(), "the quick query must not wait out a standby sleep");
            return queryAnswers
                    ? new CommandResult(request, 0, "PartitionName=debug", "", false, Duration.ZERO)
                    : new CommandResult(request, 137, "", "", true, Duration.ofSeconds(2));
        };
    }

    /**
     * The probe behind the watch: a primary that answers serves; a backup answers pings in
     * standby too, so where only it answers, a quick query says whether it has taken over
     * (answered) or is still in standby (the client slept past the short timeout).
     */
    @Test
    void aBackupServesOnlyOnceItAnswersAQuickQueryAsWell() {
        String primaryUp = "Slurmctld(primary) at arctld1 is UP\nSlurmctld(backup) at arctld2 is UP\n";
        String onlyBackup = "Slurmctld(primary) at arctld1 is DOWN\nSlurmctld(backup) at arctld2 is UP\n";
        String none = "Slurmctld(primary) at arctld1 is DOWN\nSlurmctld(backup) at arctld2 is DOWN\n";
        List<List<String>> asked = new ArrayList<>();
        assertEquals(Optional.of(true), StandbyWatch.serves(controllers(primaryUp, false, asked)));
        assertEquals(Optional.of(false), StandbyWatch.serves(controllers(none, true, asked)));
        assertEquals(
                List.of(List.of("scontrol", "ping"), List.of("scontrol", "ping")),
                asked,
                "no query where the ping settles it");
        asked.clear();
        assertEquals(Optional.of(true), StandbyWatch.serves(controllers(onlyBackup, true, asked)));
        assertEquals(Optional.of(false), StandbyWatch.serves(controllers(onlyBackup, false, asked)));
        assertEquals(4, asked.size(), asked.toString());
        assertEquals(
                Optional.empty(), StandbyWatch.serves(controllers("scontrol: error: x\n", true, new ArrayList<>())));
    }

    /** Answers {@code answer} with exit 0 after {@code delayMs}, as 24.11's scontrol does after its connect retries. */
    private static CommandRunner answersLate(String answer, long delayMs) {
        return request -> {
            try {
                Thread.sleep(delayMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new CommandResult(request, 0, answer, "", false, Duration.ofMillis(delayMs));
        };
    }

    private static final CommandRequest JSON_JOB = CommandRequest.of("scontrol", "--json", "show", "job", "42");
    private static final String EMPTY_JOBS = "{\n  \"jobs\": [],\n  \"errors\": [],\n  \"warnings\": []\n}\n";

    /** 24.11 with slurmctld stopped: exit 0 and no jobs, after its retries; the pings found no controller. */
    @Test
    void anEmptyJsonAnswerWhileNoControllerServedIsTheConnectFailureItWas() {
        CommandResult result = watch(answersLate(EMPTY_JOBS, 300), probe(false)).run(JSON_JOB);
        assertEquals(1, result.exitCode());
        assertTrue(RetryPolicy.DEFAULT.isTransient(result), result.stderr());
    }

    /** The same empty answer while a controller serves is Slurm's "no such job". */
    @Test
    void anEmptyJsonAnswerFromAServingControllerStands() {
        CommandResult result = watch(answersLate(EMPTY_JOBS, 300), probe(true)).run(JSON_JOB);
        assertEquals(0, result.exitCode());
        assertEquals(EMPTY_JOBS, result.stdout());
    }

    /** Records in the answer, a quick answer (no ping), or text: left as they are. */
    @Test
    void onlyASlowEmptyJsonAnswerIsTurned() {
        String oneJob = "{\"jobs\": [{\"job_id\": 42}]}";
        assertEquals(
                0, watch(answersLate(oneJob, 300), probe(false)).run(JSON_JOB).exitCode());
        assertEquals(
                0, watch(answersLate(EMPTY_JOBS, 0), probe(false)).run(JSON_JOB).exitCode());
        assertEquals(0, watch(answersLate("", 300), probe(false)).run(SHOW_JOB).exitCode());
    }
}
