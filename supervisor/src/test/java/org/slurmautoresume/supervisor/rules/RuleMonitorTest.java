package org.slurmautoresume.supervisor.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.slurmautoresume.supervisor.rules.OutputObserver.Stream.STDERR;
import static org.slurmautoresume.supervisor.rules.OutputObserver.Stream.STDOUT;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RuleMonitorTest {

    private final FakeClock clock = new FakeClock();
    private final List<RuleViolation> violations = new ArrayList<>();

    private RuleMonitor monitor(LogRule... rules) {
        return new RuleMonitor(List.of(rules), clock, violations::add);
    }

    private static String batch(int n, double loss, double samples) {
        return "[default0]:2026-11-23 10:00:00,300 [INFO] __main__: [Epoch 0 Batch " + n + "] {'training_loss_step': "
                + loss + ", 'samples/sec': " + samples + "}";
    }

    @Test
    void aRuleWaitsUntilItsPatternMatchesThenIsHealthy() {
        RuleMonitor monitor = monitor(
                LogRule.builder("JobStart", ".*Experiment configuration.*").build());
        monitor.onLine(STDOUT, "loading data");
        assertEquals(RuleState.WAITING, monitor.states().get("JobStart"));
        monitor.onLine(STDOUT, "2026 [INFO] Experiment configuration: lr=3e-4");
        assertEquals(RuleState.HEALTHY, monitor.states().get("JobStart"));
        assertTrue(violations.isEmpty());
    }

    @Test
    void aMissedStartCutOffIsHanging() {
        RuleMonitor monitor = monitor(LogRule.builder("JobStart", ".*Experiment configuration.*")
                .expectedStartCutOffInSeconds(120)
                .build());
        clock.advanceSeconds(120);
        monitor.tick();
        assertTrue(violations.isEmpty(), "exactly at the cut-off is still in time");
        clock.advanceSeconds(0.5);
        monitor.tick();
        assertEquals(1, violations.size());
        RuleViolation v = violations.get(0);
        assertEquals(RuleState.HANGING, v.state());
        assertTrue(v.reason().contains("expectedStartCutOffInSeconds=120"), v.reason());
        assertTrue(v.lastMatchLine().isEmpty());
        assertEquals(Duration.ofMillis(120_500), v.detectedAfter());
        assertEquals(RuleState.HANGING, monitor.states().get("JobStart"));
    }

    @Test
    void aFirstMatchAfterTheCutOffIsStillHanging() {
        RuleMonitor monitor = monitor(LogRule.builder("JobStart", ".*Experiment configuration.*")
                .expectedStartCutOffInSeconds(60)
                .build());
        clock.advanceSeconds(61);
        monitor.onLine(STDOUT, "Experiment configuration: late");
        assertEquals(RuleState.HANGING, violations.get(0).state());
    }

    @Test
    void silenceLongerThanTheRecurringFrequencyIsHanging() {
        RuleMonitor monitor = monitor(LogRule.builder("JobHangingDetection", ".*Train Epoch.*")
                .expectedRecurringFrequencyInSeconds(10)
                .build());
        monitor.onLine(STDOUT, "Train Epoch: 1 [0/60000 (0%)] loss=0.8470");
        clock.advanceSeconds(9);
        monitor.onLine(STDOUT, "Train Epoch: 1 [640/60000 (1%)] loss=0.6");
        clock.advanceSeconds(10);
        monitor.tick();
        assertTrue(violations.isEmpty());
        monitor.onLine(STDOUT, "some other output does not count");
        clock.advanceSeconds(1);
        monitor.tick();
        RuleViolation v = violations.get(0);
        assertEquals(RuleState.HANGING, v.state());
        assertEquals(
                "Train Epoch: 1 [640/60000 (1%)] loss=0.6", v.lastMatchLine().orElseThrow());
        assertEquals(STDOUT, v.lastMatchStream().orElseThrow());
        assertEquals(2, v.matches());
        assertEquals(Duration.ofSeconds(11), Duration.between(v.lastMatchAt().orElseThrow(), v.detectedAt()));
        assertTrue(
                v.describe().contains("JobHangingDetection")
                        && v.describe().contains("HANGING")
                        && v.describe().contains("loss=0.6"),
                v.describe());
    }

    @Test
    void theRecurringFrequencyCountsOnlyFromTheFirstMatch() {
        RuleMonitor monitor = monitor(LogRule.builder("JobHangingDetection", ".*Train Epoch.*")
                .expectedRecurringFrequencyInSeconds(10)
                .build());
        clock.advanceSeconds(3600);
        monitor.tick();
        assertTrue(violations.isEmpty());
        assertEquals(RuleState.WAITING, monitor.states().get("JobHangingDetection"));
    }

    @Test
    void aMatchArrivingAfterTheDeadlineDoesNotExcuseTheSilence() {
        RuleMonitor monitor = monitor(LogRule.builder("hb", ".*step.*")
                .expectedRecurringFrequencyInSeconds(5)
                .build());
        monitor.onLine(STDOUT, "step 1");
        clock.advanceSeconds(7);
        monitor.onLine(STDOUT, "step 2");
        assertEquals(1, violations.size());
        assertEquals("step 1", violations.get(0).lastMatchLine().orElseThrow());
    }

    @Test
    void aMetricBadForNConsecutiveDataPointsIsSlow() {
        RuleMonitor monitor = monitor(LogRule.builder(
                        "LowThroughputDetection", ".*\\[Epoch 0 Batch \\d+.*'samples\\/sec': (\\d+(\\.\\d+)?).*")
                .metric(MetricOperator.LTEQ, 80)
                .metricEvaluationDataPoints(3)
                .build());
        monitor.onLine(STDOUT, batch(1, 2.1, 79.5));
        monitor.onLine(STDOUT, batch(2, 2.0, 80));
        monitor.onLine(STDOUT, batch(3, 2.0, 95.0)); // a good point breaks the run
        monitor.onLine(STDOUT, batch(4, 1.9, 70.25));
        monitor.onLine(STDOUT, batch(5, 1.9, 60));
        assertTrue(violations.isEmpty());
        assertEquals(RuleState.HEALTHY, monitor.states().get("LowThroughputDetection"));
        monitor.onLine(STDERR, batch(6, 1.9, 50));
        RuleViolation v = violations.get(0);
        assertEquals(RuleState.SLOW, v.state());
        assertEquals(
                List.of(70.25, 60.0, 50.0),
                v.dataPoints().stream().map(DataPoint::value).toList());
        assertEquals(STDERR, v.lastMatchStream().orElseThrow());
        assertTrue(v.reason().contains("lteq 80"), v.reason());
    }

    @Test
    void oneDataPointIsTheDefault() {
        RuleMonitor monitor = monitor(LogRule.builder("LossSpikeDetection", ".*training_loss_step (\\d+(?:\\.\\d+)?).*")
                .metric(MetricOperator.GT, 2.0)
                .build());
        monitor.onLine(STDOUT, "iter 5 training_loss_step 1.9 lr 3e-4");
        assertTrue(violations.isEmpty());
        monitor.onLine(STDOUT, "iter 6 training_loss_step 5.0 lr 3e-4");
        assertEquals(RuleState.SLOW, violations.get(0).state());
        assertEquals("5.0", violations.get(0).dataPoints().get(0).text());
    }

    @Test
    void aMetricThatIsNotANumberIsFaulted() {
        RuleMonitor monitor = monitor(LogRule.builder("TFLOPs", ".* (.+)TFLOPs.*")
                .metric(MetricOperator.LT, 100)
                .metricEvaluationDataPoints(2)
                .build());
        monitor.onLine(STDOUT, "Training model, speed: 140.5 TFLOPs per GPU");
        assertEquals(RuleState.HEALTHY, monitor.states().get("TFLOPs"));
        monitor.onLine(STDOUT, "Training model, speed: 90 TFLOPs per GPU");
        monitor.onLine(STDOUT, "Training model, speed: nan TFLOPs per GPU");
        RuleViolation v = violations.get(0);
        assertEquals(RuleState.FAULTED, v.state());
        assertFalse(v.dataPoints().get(1).readable());
        assertEquals("nan", v.dataPoints().get(1).text());
    }

    @Test
    void aStopPatternSwitchesTheRuleOff() {
        RuleMonitor monitor = monitor(LogRule.builder("JobHangingDetection", ".*Train Epoch.*")
                .stopPattern(".*Training finished, saving final model.*")
                .expectedRecurringFrequencyInSeconds(10)
                .build());
        monitor.onLine(STDOUT, "Train Epoch: 9 [59520/60000 (99%)] loss=0.01");
        monitor.onLine(STDOUT, "Training finished, saving final model to /fsx/out");
        assertTrue(monitor.stopped("JobHangingDetection"));
        clock.advanceSeconds(600);
        monitor.tick();
        monitor.onLine(STDOUT, "Train Epoch: 9 [59520/60000 (99%)] loss=0.01");
        assertTrue(violations.isEmpty());
    }

    @Test
    void eachRuleReportsItsViolationOnce() {
        RuleMonitor monitor = monitor(
                LogRule.builder("hb", ".*step.*")
                        .expectedRecurringFrequencyInSeconds(5)
                        .build(),
                LogRule.builder("start", ".*never.*")
                        .expectedStartCutOffInSeconds(1)
                        .build());
        monitor.onLine(STDOUT, "step 1");
        clock.advanceSeconds(6);
        monitor.tick();
        monitor.tick();
        clock.advanceSeconds(6);
        monitor.tick();
        monitor.onLine(STDOUT, "step 2");
        assertEquals(
                List.of("hb", "start"),
                violations.stream().map(RuleViolation::rule).toList());
    }

    @Test
    void patternsMatchAtTheStartOfTheLineLikePythonsReMatch() {
        RuleMonitor monitor = monitor(
                LogRule.builder("anchored", "Train Epoch").build(),
                LogRule.builder("free", ".*Train Epoch").build());
        monitor.onLine(STDOUT, "[default0]: Train Epoch: 1");
        assertEquals(RuleState.WAITING, monitor.states().get("anchored"));
        assertEquals(RuleState.HEALTHY, monitor.states().get("free"));
        monitor.onLine(STDOUT, "Train Epoch: 2 and more");
        assertEquals(RuleState.HEALTHY, monitor.states().get("anchored"));
    }

    @Test
    void bothStreamsAreWatched() {
        RuleMonitor monitor = monitor(LogRule.builder("err", ".*NCCL WARN.*").build());
        monitor.onLine(STDERR, "node3:1234:1234 [0] NCCL WARN Call to connect returned Connection refused");
        assertEquals(RuleState.HEALTHY, monitor.states().get("err"));
    }
}
