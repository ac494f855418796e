package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * Log rules and the restart policy in the supervisor, on real srun steps in sbatch jobs of the
 * test user: what fires, when (measured from the tasks' own timestamps and the supervisor's
 * detection time, both read from the one host clock), what the policy then does, and that the
 * output is untouched.
 */
class LogRulesIT {

    private static final Duration JOB_END = Duration.ofSeconds(120);
    private static final AtomicInteger CONFIGS = new AtomicInteger();
    /** The timeline of a step stopped by a rule in attempt 1 and re-run once, successfully. */
    private static final List<String> RE_RUN_ONCE = List.of(
            "1:launch", "1:detection", "1:attempt-ended", "1:decision", "2:launch", "2:attempt-ended", "2:succeeded");
    /** The timeline of a step stopped by a rule with no restart left. */
    private static final List<String> GAVE_UP_AT_ONCE =
            List.of("1:launch", "1:detection", "1:attempt-ended", "1:decision", "1:give-up");

    private static LocalCluster cluster;
    private final List<String> jobs = new ArrayList<>();

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
    }

    @AfterEach
    void cancelLeftovers() {
        for (String job : jobs) {
            cluster.run(List.of("scancel", job));
        }
    }

    /** A job file in the jobs directory, readable by the test user. */
    private static Path config(String yaml) {
        return cluster.writeJobsFile(
                "rules-it-" + ProcessHandle.current().pid() + "-" + CONFIGS.incrementAndGet() + ".yaml",
                yaml,
                "rw-r--r--");
    }

    /** A batch script that runs {@code task} (bash) as a supervised one-task step with the given job file. */
    private String submit(Path config, String task, String... options) {
        String script = """
                #!/bin/bash
                export AUTORESUME_CONFIG='%s'
                '%s' supervise -- srun -N1 -n1 bash -c '%s'
                echo "SUP $?"
                """.formatted(config, cluster.launcher(), task);
        String jobId = cluster.submit(script, List.of(options.length == 0 ? new String[] {"-N1"} : options));
        jobs.add(jobId);
        return jobId;
    }

    private String finished(String jobId) {
        Job job = cluster.waitForJobEnd(jobId, JOB_END);
        String output = cluster.jobOutput(jobId);
        assertEquals(JobState.COMPLETED, job.state(), output);
        return output;
    }

    private static List<String> linesStarting(String output, String prefix) {
        return output.lines().filter(l -> l.startsWith(prefix)).toList();
    }

    private static long epochMillisAfter(String line, String prefix) {
        return Long.parseLong(line.substring(prefix.length()).strip().split(" ")[0]);
    }

    /**
     * When the supervisor found the violation: the last match (or the checkpoint's marker) plus
     * the detection's latency, both as recorded in the timeline.
     */
    private static Instant detectedAt(Timeline.Event detection) {
        return Instant.parse(detection.detail("lastMatchAt")).plusMillis(detection.latency());
    }

    private static Timeline.Event detection(Timeline timeline, String source, String rule, String state) {
        Timeline.Event detection = timeline.only(Timeline.Kind.DETECTION);
        assertEquals(
                List.of(source, rule, state),
                List.of(detection.detail("source"), detection.detail("rule"), detection.detail("state")),
                timeline.toString());
        return detection;
    }

    /**
     * The heartbeat, no log rule written: the step beats, says a checkpoint begins and stays
     * silent past the steady timeout but within the checkpoint one (no alarm), beats again, and
     * is then hung from outside (every task stopped, `local-cluster.sh hang-step`). The hang is
     * found after the steady timeout and the step runs again.
     */
    @Test
    void aHeartbeatWithPhasesFindsAHungStepAndNotASlowCheckpoint() throws IOException {
        Path config = config("""
                runPolicy:
                  jobMaxRetryCount: 1
                  heartbeat: {startupTimeoutSeconds: 60, steadyTimeoutSeconds: 4, checkpointTimeoutSeconds: 30}
                """);
        String jobId = submit(config, """
                echo "AUTORESUME_HEARTBEAT"; echo "AUTORESUME_HEARTBEAT phase=checkpoint"; sleep 8
                echo "checkpoint written $(date +%s%3N) attempt $AUTO_RESUME_ATTEMPT"
                if [ "$AUTO_RESUME_ATTEMPT" = 1 ]; then touch "$SLURM_JOB_ID.beating"; while true; do echo AUTORESUME_HEARTBEAT; sleep 0.5; done; fi
                echo "done $(date +%s%3N)"
                """);
        Wait.until(
                "job " + jobId + " to beat after its checkpoint",
                Duration.ofSeconds(300),
                () -> Files.exists(cluster.jobsDir().resolve(jobId + ".beating"))
                        ? Optional.of(true)
                        : Optional.empty());
        Instant hung = Instant.now();
        cluster.hangStep(jobId);
        String output = finished(jobId);
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(RE_RUN_ONCE, timeline.attemptsAndKinds(), timeline.toString());
        Timeline.Event detection = detection(timeline, "log-rule", "Heartbeat", "HANGING");
        long detectedMs = Duration.between(hung, detection.at()).toMillis();
        long rerunMs =
                Duration.between(hung, timeline.last(Timeline.Kind.LAUNCH).at()).toMillis();
        // The steady timeout (4 s) after the last beat, which came at most 0.5 s before the hang.
        assertTrue(
                detectedMs >= 3000 && detectedMs <= 6000, "detected " + detectedMs + " ms after the hang: " + timeline);
        assertEquals(
                2,
                linesStarting(output, "checkpoint written").size(),
                "both attempts got past the 8 s checkpoint: " + output);
        assertTrue(output.contains("SUP 0"), output);
        FaultMatrix.row("hang-heartbeat", hung, timeline, "COMPLETED");
        System.out.printf(
                "heartbeat: hang found %d ms after every task stopped (steady timeout 4000 ms); attempt 2"
                        + " launched %d ms after the hang%n",
                detectedMs, rerunMs);
    }

    @Test
    void aStepThatStopsPrintingIsFoundWithinItsFrequencyAndReRun() throws IOException {
        Path config = config("""
                runPolicy:
                  jobMaxRetryCount: 1
                  logMonitoringConfiguration:
                    - name: Heartbeat
                      logPattern: ".*beat .*"
                      expectedRecurringFrequencyInSeconds: 3
                """);
        String jobId = submit(config, """
                for i in 1 2 3; do echo "beat $(date +%s%3N) attempt $AUTO_RESUME_ATTEMPT"; sleep 0.3; done
                if [ "$AUTO_RESUME_ATTEMPT" = 1 ]; then sleep 120; fi
                echo "done $(date +%s%3N)"
                """);
        String output = finished(jobId);
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(RE_RUN_ONCE, timeline.attemptsAndKinds(), timeline.toString());
        Timeline.Event detection = detection(timeline, "log-rule", "Heartbeat", "HANGING");
        List<String> firstAttempt = linesStarting(output, "beat ").stream()
                .filter(l -> l.endsWith("attempt 1"))
                .toList();
        assertEquals(3, firstAttempt.size(), output);
        long lastBeat = epochMillisAfter(firstAttempt.get(2), "beat ");
        long latency = detectedAt(detection).toEpochMilli() - lastBeat;
        // Within the frequency plus one second; never before the frequency has passed.
        assertTrue(latency >= 3000 && latency <= 4000, "detected " + latency + " ms after the last beat: " + output);
        // The supervisor saw the last beat within 300 ms of the task printing it.
        assertTrue(detection.latency() >= 3000 && detection.latency() <= 3300, timeline.toString());
        Timeline.Event decision = timeline.only(Timeline.Kind.DECISION);
        assertEquals(
                List.of("RULE_VIOLATION", "retry", "RERUN_IN_PLACE"),
                List.of(decision.detail("fault"), decision.detail("strategy"), decision.level()),
                timeline.toString());
        assertEquals(
                3,
                linesStarting(output, "beat ").stream()
                        .filter(l -> l.endsWith("attempt 2"))
                        .count(),
                output);
        long relaunch = epochMillisAfter(
                        linesStarting(output, "beat ").stream()
                                .filter(l -> l.endsWith("attempt 2"))
                                .findFirst()
                                .orElseThrow(),
                        "beat ")
                - detectedAt(detection).toEpochMilli();
        System.out.printf(
                "LogRulesIT: hang detected %d ms after the last beat (frequency 3000 ms);"
                        + " attempt 2 printed %d ms after the detection%n",
                latency, relaunch);
        assertTrue(output.contains("SUP 0"), output);
        assertTrue(timeline.last(Timeline.Kind.LAUNCH).latency() >= 0, timeline.toString());
    }

    /**
     * The checkpoint rule: attempt 1 writes a complete checkpoint every second for four seconds,
     * then keeps printing but leaves its next save half-written. The stop is found within the
     * frequency, the step is re-run, and the re-run is told the last complete checkpoint and must
     * write one of its own (step-4, from attempt 1, is not new for it).
     */
    @Test
    void checkpointsThatStopAppearingAreFoundWithinTheFrequencyAndTheReRunResumesFromTheLast() throws IOException {
        Path checkpoints = cluster.jobsDir()
                .resolve("rules-it-ckpt-" + ProcessHandle.current().pid() + "-" + CONFIGS.incrementAndGet());
        Path config = config("""
                runPolicy:
                  jobMaxRetryCount: 1
                  checkpointMonitoring:
                    directory: %s
                    expectedStartCutOffInSeconds: 10
                    expectedRecurringFrequencyInSeconds: 3
                """.formatted(checkpoints));
        String jobId = submit(config, "d=\"" + checkpoints + "\"\n" + """
                a=$AUTO_RESUME_ATTEMPT
                echo "attempt $a resumes from ${AUTO_RESUME_CHECKPOINT:-nothing}"
                save() {
                  mkdir -p "$d/$1"; echo shard > "$d/$1/__0_0.distcp"; echo meta > "$d/$1/.metadata"
                  echo "saved $1 $(date +%s%3N) attempt $a"
                }
                if [ "$a" = 1 ]; then
                  for i in 1 2 3 4; do sleep 1; save step-$i; done
                  mkdir -p "$d/step-5"; echo shard > "$d/step-5/__0_0.distcp"
                  for i in $(seq 1 600); do echo "training $i"; sleep 0.1; done
                else
                  sleep 1; save step-6
                fi
                echo "done attempt $a"
                """);
        String output = finished(jobId);
        Path last = checkpoints.resolve("step-4");
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(RE_RUN_ONCE, timeline.attemptsAndKinds(), timeline.toString());
        Timeline.Event detection = detection(timeline, "checkpoint-rule", "checkpoint", "HANGING");
        assertEquals(last.toString(), detection.detail("lastMatch"), timeline.toString());
        assertEquals(
                4,
                linesStarting(output, "saved ").stream()
                        .filter(l -> l.endsWith("attempt 1"))
                        .count(),
                output);
        assertTrue(linesStarting(output, "training ").size() > 10, "it kept printing: " + output);
        Instant lastSaved = Files.getLastModifiedTime(last.resolve(".metadata")).toInstant();
        long latency = detectedAt(detection).toEpochMilli() - lastSaved.toEpochMilli();
        // Within the frequency plus one second; never before the frequency has passed.
        assertTrue(latency >= 3000 && latency <= 4000, "detected " + latency + " ms after the last save: " + output);
        assertTrue(detection.latency() >= 3000 && detection.latency() <= 4000, timeline.toString());
        Timeline.Event decision = timeline.only(Timeline.Kind.DECISION);
        assertEquals(
                List.of("RULE_VIOLATION", "retry", "RERUN_IN_PLACE"),
                List.of(decision.detail("fault"), decision.detail("strategy"), decision.level()),
                timeline.toString());
        // What the re-run was told, as the step itself sees it (AUTO_RESUME_CHECKPOINT).
        assertTrue(output.contains("attempt 1 resumes from nothing"), output);
        assertTrue(output.contains("attempt 2 resumes from " + last), output);
        assertTrue(output.contains("done attempt 2"), output);
        assertFalse(output.contains("done attempt 1"), output);
        assertTrue(output.contains("SUP 0"), output);
        System.out.printf(
                "LogRulesIT: checkpoints' stop detected %d ms after the last complete one" + " (frequency 3000 ms)%n",
                latency);
    }

    @Test
    void aMissedStartCutOffIsHangingAndWithNoBudgetTheStepEnds() {
        Path config = config("""
                runPolicy:
                  jobMaxRetryCount: 0
                  logMonitoringConfiguration:
                    - name: Started
                      logPattern: ".*training started.*"
                      expectedStartCutOffInSeconds: 2
                """);
        String jobId = submit(config, "echo \"loading $(date +%s%3N)\"; sleep 120; echo \"training started\"");
        String output = finished(jobId);
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(GAVE_UP_AT_ONCE, timeline.attemptsAndKinds(), timeline.toString());
        Timeline.Event detection = detection(timeline, "log-rule", "Started", "HANGING");
        assertEquals("", detection.detail("lastMatch"), timeline.toString());
        // No line ever matched: the latency counts from the step's start.
        long afterStart = detection.latency();
        assertTrue(afterStart >= 2000 && afterStart <= 3000, afterStart + " ms after the start: " + timeline);
        long loading = epochMillisAfter(linesStarting(output, "loading ").get(0), "loading ");
        // The event is written just after the detection, so this bound is if anything tighter.
        assertTrue(detection.at().toEpochMilli() - loading <= 3000, timeline + output);
        assertEquals("GIVE_UP", timeline.only(Timeline.Kind.DECISION).level(), timeline.toString());
        assertTrue(timeline.only(Timeline.Kind.GIVE_UP).status() != 0, timeline.toString());
        assertFalse(output.contains("training started"), output);
        assertFalse(output.contains("SUP 0"), output);
    }

    @Test
    void aMetricAboveItsThresholdForNDataPointsInARowIsSlow() {
        Path config = config("""
                runPolicy:
                  jobMaxRetryCount: 0
                  logMonitoringConfiguration:
                    - name: LossSpike
                      logPattern: ".*loss=([0-9.]+).*"
                      metricThreshold: 5
                      operator: gt
                      metricEvaluationDataPoints: 3
                """);
        // Two bad points, a good one (the run starts again), then three bad ones in a row.
        String jobId = submit(config, """
                for v in 1 9.5 8 2 7 6.5 9.25; do echo "step $v loss=$v"; sleep 0.2; done
                echo "after the spike"; sleep 120
                """);
        String output = finished(jobId);
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(GAVE_UP_AT_ONCE, timeline.attemptsAndKinds(), timeline.toString());
        // Once, on the third bad point in a row: not on the first two, which a good one interrupted.
        Timeline.Event detection = detection(timeline, "log-rule", "LossSpike", "SLOW");
        assertEquals("step 9.25 loss=9.25", detection.detail("lastMatch"), timeline.toString());
        assertFalse(output.contains("SUP 0"), output);
    }

    @Test
    void aStopPatternSwitchesItsRuleOff() {
        Path config = config("""
                runPolicy:
                  jobMaxRetryCount: 0
                  logMonitoringConfiguration:
                    - name: Heartbeat
                      logPattern: ".*beat.*"
                      stopPattern: ".*training finished.*"
                      expectedRecurringFrequencyInSeconds: 1
                """);
        String jobId = submit(config, """
                for i in 1 2 3; do echo beat; sleep 0.2; done
                echo "training finished $(date +%s%3N)"; sleep 3; echo "evaluated $(date +%s%3N)"
                """);
        String output = finished(jobId);
        long finishedAt =
                epochMillisAfter(linesStarting(output, "training finished ").get(0), "training finished ");
        long evaluatedAt = epochMillisAfter(linesStarting(output, "evaluated ").get(0), "evaluated ");
        assertTrue(evaluatedAt - finishedAt >= 3000, output); // silent three times longer than the frequency
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(
                List.of("1:launch", "1:attempt-ended", "1:succeeded"),
                timeline.attemptsAndKinds(),
                timeline.toString());
        assertTrue(output.contains("SUP 0"), output);
    }

    /**
     * numRestartBeforeFullJobRestart=1 in evalPeriodSeconds=4: failures close together escalate
     * (here to exit: maxFullJobRestarts=0), failures further apart than the window are re-run.
     */
    @Test
    void restartsInsideTheEvalPeriodEscalateAndThoseOutsideItDoNot() {
        String policy = """
                runPolicy:
                  jobMaxRetryCount: 10
                  restartPolicy:
                    numRestartBeforeFullJobRestart: 1
                    evalPeriodSeconds: 4
                    maxFullJobRestarts: 0
                  recoverStrategy: [retry, requeue, exit]
                """;
        String task = "echo \"attempt $AUTO_RESUME_ATTEMPT $(date +%%s%%3N)\"; sleep %s;"
                + " [ \"$AUTO_RESUME_ATTEMPT\" -ge 3 ] || exit 3";
        String close = submit(config(policy), task.formatted("0.1"));
        String apart = submit(config(policy), task.formatted("5"));
        String closeOutput = finished(close);
        assertEquals(2, linesStarting(closeOutput, "attempt ").size(), closeOutput);
        // jobMaxRetryCount=10 is far off: the second failure gave up because the window's limit
        // sent it to requeue, whose budget is zero.
        Timeline closeTimeline = Timeline.of(cluster, close);
        assertEquals(
                List.of("RERUN_IN_PLACE", "GIVE_UP"),
                closeTimeline.all(Timeline.Kind.DECISION).stream()
                        .map(Timeline.Event::level)
                        .toList(),
                closeTimeline.toString());
        assertEquals(3, closeTimeline.only(Timeline.Kind.GIVE_UP).status(), closeTimeline.toString());
        assertTrue(closeOutput.contains("SUP 3"), closeOutput);
        String apartOutput = finished(apart);
        List<String> attempts = linesStarting(apartOutput, "attempt ");
        assertEquals(3, attempts.size(), apartOutput);
        long gap = epochMillisAfter(attempts.get(2).substring("attempt 3".length()), "")
                - epochMillisAfter(attempts.get(1).substring("attempt 2".length()), "");
        assertTrue(gap > 4000, "attempts " + gap + " ms apart: " + apartOutput);
        Timeline apartTimeline = Timeline.of(cluster, apart);
        assertEquals(
                List.of("RERUN_IN_PLACE", "RERUN_IN_PLACE"),
                apartTimeline.all(Timeline.Kind.DECISION).stream()
                        .map(Timeline.Event::level)
                        .toList(),
                apartTimeline.toString());
        assertEquals(3, apartTimeline.only(Timeline.Kind.SUCCEEDED).attempt(), apartTimeline.toString());
        assertTrue(apartOutput.contains("SUP 0"), apartOutput);
    }

    /**
     * jobMaxRetryCount=1, maxFullJobRestarts=1: the first hang is re-run in place, the second
     * requeues the job, and after the requeue (the supervisor starts afresh in the new run) the
     * history file says both budgets are spent, so the third gives up.
     */
    @Test
    void pastTheStepBudgetAHangRequeuesTheJobOnceAndThenGivesUp() throws IOException {
        Path config = config("""
                runPolicy:
                  jobMaxRetryCount: 1
                  restartPolicy:
                    maxFullJobRestarts: 1
                  recoverStrategy: [retry, requeue, exit]
                  logMonitoringConfiguration:
                    - name: Heartbeat
                      logPattern: ".*beat.*"
                      expectedRecurringFrequencyInSeconds: 2
                """);
        // Both runs append to one output file, named for this test alone: job ids are reused.
        Path out = cluster.jobsDir()
                .resolve(
                        "rules-it-requeue-" + ProcessHandle.current().pid() + "-" + CONFIGS.incrementAndGet() + ".out");
        String jobId = submit(
                config,
                "echo \"beat run $SLURM_RESTART_COUNT attempt $AUTO_RESUME_ATTEMPT\"; sleep 120",
                "-N1",
                "--requeue",
                "--open-mode=append",
                "--output=" + out);
        Job requeued = cluster.waitForJob(jobId, "to be requeued", JOB_END, job -> job.restarts() >= 1);
        long requeueSecond = Instant.now().getEpochSecond();
        assertEquals(1, requeued.restarts());
        // Slurm holds a requeued job back for two minutes (its BeginTime); we let it start sooner, but
        // not within the second of the requeue: slurmd refuses a batch launch whose credential is no
        // newer, to the second, than the one revoked by the requeue ("Job N already killed, do not
        // launch batch job"), and the job then FAILS.
        Wait.until("job " + jobId + " to accept an earlier start", Duration.ofSeconds(30), () -> {
            if (Instant.now().getEpochSecond() <= requeueSecond + 1) {
                return Optional.empty();
            }
            cluster.run(List.of("scontrol", "update", "jobid=" + jobId, "StartTime=now"));
            return cluster.slurm()
                    .job(jobId)
                    .filter(j -> j.state() != JobState.PENDING || !"BeginTime".equals(j.reason()));
        });
        Job done = cluster.waitForJobEnd(jobId, JOB_END);
        String output = Files.readString(out);
        assertEquals(JobState.COMPLETED, done.state(), output);
        assertTrue(output.contains("beat run  attempt 1") || output.contains("beat run 0 attempt 1"), output);
        assertTrue(output.contains("beat run 1 attempt 1"), output);
        assertFalse(output.contains("beat run 1 attempt 2"), output);
        assertEquals(1, cluster.slurm().job(jobId).orElseThrow().restarts());
        assertTrue(output.contains("SUP "), output);
        assertFalse(output.contains("SUP 0"), output);
        // One timeline across the requeue: the second run appends to the first run's, and its
        // attempts count afresh.
        Timeline timeline = Timeline.of(cluster, jobId);
        assertEquals(
                List.of(
                        "1:launch",
                        "1:detection",
                        "1:attempt-ended",
                        "1:decision",
                        "2:launch",
                        "2:detection",
                        "2:attempt-ended",
                        "2:decision",
                        "2:requeue",
                        "1:launch",
                        "1:detection",
                        "1:attempt-ended",
                        "1:decision",
                        "1:give-up"),
                timeline.attemptsAndKinds(),
                timeline.toString());
        assertEquals(
                List.of("RERUN_IN_PLACE", "REQUEUE_JOB", "GIVE_UP"),
                timeline.all(Timeline.Kind.DECISION).stream()
                        .map(Timeline.Event::level)
                        .toList(),
                timeline.toString());
    }

    /**
     * dump: the first attempt traps SIGUSR1 and keeps going, so the whole grace period passes
     * before it is stopped; the second ends by itself (exit 0) on SIGUSR1, which still counts as
     * the rule's doing; the third runs to the end.
     */
    @Test
    void dumpDeliversTheSignalAndWaitsTheGracePeriod() {
        Path config = config("""
                runPolicy:
                  jobMaxRetryCount: 2
                  recoverStrategy: [dump, retry, exit]
                  dump: {signal: SIGUSR1, gracePeriodSeconds: 3}
                  logMonitoringConfiguration:
                    - name: Heartbeat
                      logPattern: ".*beat.*"
                      expectedRecurringFrequencyInSeconds: 2
                """);
        String jobId = submit(config, """
                a=$AUTO_RESUME_ATTEMPT
                noted() { echo "usr1 $(date +%s%3N) attempt $a"; }
                saved() { noted; echo "checkpoint written"; exit 0; }
                if [ "$a" = 1 ]; then trap noted USR1; fi
                if [ "$a" = 2 ]; then trap saved USR1; fi
                echo "beat attempt $a"
                if [ "$a" -lt 3 ]; then for i in $(seq 1 1200); do sleep 0.1; done; fi
                echo "finished attempt $a"
                """);
        String output = finished(jobId);
        List<String> usr1 = linesStarting(output, "usr1 ");
        assertEquals(2, usr1.size(), output);
        Timeline timeline = Timeline.of(cluster, jobId);
        List<Timeline.Event> dumps = timeline.all(Timeline.Kind.DUMP);
        assertEquals(List.of(1, 2), dumps.stream().map(Timeline.Event::attempt).toList(), timeline.toString());
        for (Timeline.Event dump : dumps) {
            assertEquals(
                    List.of("SIGUSR1", "3"),
                    List.of(dump.detail("signal"), dump.detail("gracePeriodSeconds")),
                    timeline.toString());
        }
        // Attempt 1 ignored the signal and was stopped after the whole grace period; attempt 2 ended by itself.
        assertEquals("false", dumps.get(0).detail("endedByItself"), timeline.toString());
        assertTrue(dumps.get(0).latency() >= 3000, timeline.toString());
        assertEquals("true", dumps.get(1).detail("endedByItself"), timeline.toString());
        assertTrue(dumps.get(1).latency() < 3000, timeline.toString());
        assertEquals(List.of(1, 2, 3), timeline.launchedAttempts(), timeline.toString());
        assertEquals(3, timeline.only(Timeline.Kind.SUCCEEDED).attempt(), timeline.toString());
        assertTrue(output.contains("checkpoint written"), output);
        assertTrue(output.contains("finished attempt 3"), output);
        assertFalse(output.contains("finished attempt 1"), output);
        assertTrue(output.contains("SUP 0"), output);
    }

    @Test
    void outputWithRulesIsByteForByteWhatPlainSrunWrites() throws IOException {
        Path config = config("""
                runPolicy:
                  logMonitoringConfiguration:
                    - name: Numbers
                      logPattern: "([0-9]+)$"
                      metricThreshold: 1000000000
                      operator: gt
                      metricEvaluationDataPoints: 5
                    - name: AnyOutput
                      logPattern: ".*"
                      expectedRecurringFrequencyInSeconds: 60
                    - name: Progress
                      logPattern: ".*progress ([0-9]+)%.*"
                      metricThreshold: 101
                      operator: gteq
                """);
        // Text, CRs of a progress bar, bytes that are not UTF-8 (gzip output), and stderr.
        String writer = "seq 1 200000; for i in $(seq 1 100); do printf \"progress %d%%\\r\" $i; done; echo;"
                + " seq 1 30000 | gzip -n -c; seq 1 20000 >&2";
        String script = """
                #!/bin/bash
                srun -N1 -n1 bash -c '%1$s' > $SLURM_JOB_ID.plain.out 2> $SLURM_JOB_ID.plain.err
                AUTORESUME_CONFIG='%2$s' '%3$s' supervise -- srun -N1 -n1 bash -c '%1$s' > $SLURM_JOB_ID.rules.out 2> $SLURM_JOB_ID.rules.err
                echo "SUP $?"
                """.formatted(writer, config, cluster.launcher());
        String jobId = cluster.submit(script, List.of("-N1"));
        jobs.add(jobId);
        String output = finished(jobId);
        assertTrue(output.contains("SUP 0"), output);
        byte[] plain = Files.readAllBytes(cluster.jobsDir().resolve(jobId + ".plain.out"));
        assertTrue(plain.length > 1_000_000, "expected over a MB, got " + plain.length);
        assertArrayEquals(plain, Files.readAllBytes(cluster.jobsDir().resolve(jobId + ".rules.out")));
        String plainErr =
                Files.readString(cluster.jobsDir().resolve(jobId + ".plain.err"), StandardCharsets.ISO_8859_1);
        String rulesErr =
                Files.readString(cluster.jobsDir().resolve(jobId + ".rules.err"), StandardCharsets.ISO_8859_1);
        StringBuilder withoutSupervisor = new StringBuilder();
        for (String line : rulesErr.split("(?<=\n)")) {
            // Wording is the feature: on a healthy step the supervisor may say nothing but preflight advice.
            if (line.startsWith("[auto-resume] ")) {
                assertTrue(
                        line.contains(": preflight") || line.contains(": recovery paths: "),
                        "the supervisor spoke about a step that was fine: " + line);
            } else {
                withoutSupervisor.append(line);
            }
        }
        assertEquals(plainErr, withoutSupervisor.toString());
    }
}
