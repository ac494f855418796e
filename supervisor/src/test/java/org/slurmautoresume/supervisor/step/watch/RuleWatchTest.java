package org.slurmautoresume.supervisor.step.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.supervisor.checkpoint.CheckpointLocator;
import org.slurmautoresume.supervisor.checkpoint.CheckpointMonitor;
import org.slurmautoresume.supervisor.checkpoint.CheckpointRule;
import org.slurmautoresume.supervisor.rules.Heartbeat;
import org.slurmautoresume.supervisor.rules.LogRule;
import org.slurmautoresume.supervisor.rules.OutputObserver;
import org.slurmautoresume.supervisor.rules.RuleState;
import org.slurmautoresume.supervisor.rules.RuleViolation;

class RuleWatchTest {

    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        ticker.shutdownNow();
    }

    private static void write(OutputObserver observer, OutputObserver.Stream stream, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        observer.onBytes(stream, bytes, 0, bytes.length);
    }

    @Test
    void silenceIsFoundByTheTimerWithoutAnyLine() throws Exception {
        LogRule rule = LogRule.builder("Beat", ".*beat.*")
                .expectedRecurringFrequencyInSeconds(1)
                .build();
        CountDownLatch fired = new CountDownLatch(1);
        List<RuleViolation> seen = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        try (RuleWatch watch = new RuleWatch(List.of(rule), InstantSource.system(), ticker, v -> {
            seen.add(v);
            threads.add(Thread.currentThread().getName());
            fired.countDown();
        })) {
            write(watch.observer(), OutputObserver.Stream.STDERR, "beat 1\n");
            long lastBeat = System.nanoTime();
            assertTrue(fired.await(5, TimeUnit.SECONDS), "the hang was never found");
            long after = Duration.ofNanos(System.nanoTime() - lastBeat).toMillis();
            assertTrue(after >= 1000 && after < 1000 + 2 * RuleWatch.TICK.toMillis() + 300, after + " ms");
            watch.awaitHandler(Duration.ofSeconds(5));
            assertEquals(RuleState.HANGING, watch.violation().orElseThrow().state());
        }
        assertEquals(1, seen.size());
        assertEquals(List.of("rule-violation"), threads);
        assertEquals("beat 1", seen.get(0).lastMatchLine().orElseThrow());
    }

    @Test
    void theFirstHeartbeatIsTheAttemptsProgressSaidOnce() throws Exception {
        List<RuleWatch.Progress> seen = new CopyOnWriteArrayList<>();
        CountDownLatch progressed = new CountDownLatch(1);
        try (RuleWatch watch = new RuleWatch(
                List.of(Heartbeat.DEFAULTS.rule()),
                Optional.empty(),
                InstantSource.system(),
                ticker,
                ticker,
                v -> {},
                p -> {
                    seen.add(p);
                    progressed.countDown();
                })) {
            assertEquals(List.of("heartbeat"), watch.progressSources());
            write(watch.observer(), OutputObserver.Stream.STDOUT, "loading the model\n");
            Thread.sleep(3 * RuleWatch.TICK.toMillis());
            assertEquals(List.of(), seen, "no beat, no progress");
            java.time.Instant before = java.time.Instant.now();
            write(watch.observer(), OutputObserver.Stream.STDOUT, "0: AUTORESUME_HEARTBEAT\n");
            write(watch.observer(), OutputObserver.Stream.STDOUT, "0: AUTORESUME_HEARTBEAT\n");
            assertTrue(progressed.await(5, TimeUnit.SECONDS), "the first beat was never taken as progress");
            Thread.sleep(3 * RuleWatch.TICK.toMillis());
            assertTrue(watch.newestCheckpoint().isEmpty(), "no checkpoint rule");
        }
        assertEquals(1, seen.size(), seen.toString());
        assertEquals("heartbeat", seen.get(0).source());
        LogRule namesake = LogRule.builder(Heartbeat.NAME, ".*beat.*").build();
        try (RuleWatch watch = new RuleWatch(List.of(namesake), InstantSource.system(), ticker, v -> {})) {
            assertEquals(List.of(), watch.progressSources(), "a log rule of the user's that took the heartbeat's name");
        }
    }

    @Test
    void theFirstNewCheckpointIsProgressAndTheNewestIsKnownAtTheEnd(@TempDir Path dir) throws Exception {
        // Scanned every second; a checkpoint due 4 s after the last, so nothing fires while this runs.
        CheckpointRule rule =
                new CheckpointRule(Optional.empty(), Optional.empty(), OptionalLong.empty(), OptionalLong.of(4));
        Files.writeString(Files.createDirectories(dir.resolve("step-0")).resolve(".metadata"), "meta");
        CheckpointMonitor checkpoints =
                new CheckpointMonitor(rule, new CheckpointLocator(dir, ".metadata"), InstantSource.system());
        List<RuleWatch.Progress> seen = new CopyOnWriteArrayList<>();
        CountDownLatch progressed = new CountDownLatch(1);
        try (RuleWatch watch = new RuleWatch(
                List.of(), Optional.of(checkpoints), InstantSource.system(), ticker, ticker, v -> {}, p -> {
                    seen.add(p);
                    progressed.countDown();
                })) {
            assertEquals(List.of("checkpoint"), watch.progressSources());
            java.time.Instant resumedFrom = watch.newestCheckpoint().orElseThrow();
            Thread.sleep(50);
            Files.writeString(Files.createDirectories(dir.resolve("step-1")).resolve(".metadata"), "meta");
            assertTrue(progressed.await(10, TimeUnit.SECONDS), "the new checkpoint was never taken as progress");
            assertEquals("checkpoint", seen.get(0).source());
            assertTrue(watch.newestCheckpoint().orElseThrow().isAfter(resumedFrom), "the new one is the newest");
        }
    }

    @Test
    void checkpointsThatStopAreFoundOnTimeByTheTimerAlone(@TempDir Path dir) throws Exception {
        CheckpointRule rule =
                new CheckpointRule(Optional.empty(), Optional.empty(), OptionalLong.empty(), OptionalLong.of(1));
        CheckpointMonitor checkpoints =
                new CheckpointMonitor(rule, new CheckpointLocator(dir, ".metadata"), InstantSource.system());
        CountDownLatch fired = new CountDownLatch(1);
        List<RuleViolation> seen = new CopyOnWriteArrayList<>();
        try (RuleWatch watch = new RuleWatch(List.of(), Optional.of(checkpoints), InstantSource.system(), ticker, v -> {
            seen.add(v);
            fired.countDown();
        })) {
            assertNull(watch.observer(), "without log rules srun's output is not split into lines for nothing");
            Files.writeString(Files.createDirectories(dir.resolve("step-1")).resolve(".metadata"), "meta");
            long saved = System.nanoTime();
            assertTrue(fired.await(5, TimeUnit.SECONDS), "the checkpoints' stop was never found");
            long after = Duration.ofNanos(System.nanoTime() - saved).toMillis();
            // Found by a scan made for the deadline, not by the next of the one-second scans.
            assertTrue(after >= 900 && after < 1000 + 500, after + " ms");
            watch.awaitHandler(Duration.ofSeconds(5));
        }
        RuleViolation violation = seen.get(0);
        assertEquals(1, seen.size());
        assertEquals(RuleViolation.Source.CHECKPOINT_RULE, violation.source());
        assertEquals(dir.resolve("step-1").toString(), violation.lastMatchLine().orElseThrow());
        long sinceCheckpoint = Duration.between(violation.lastMatchAt().orElseThrow(), violation.detectedAt())
                .toMillis();
        assertTrue(sinceCheckpoint > 1000 && sinceCheckpoint < 1000 + 500, sinceCheckpoint + " ms");
    }

    @Test
    void aCheckpointScanStuckOnItsThreadDoesNotHoldUpTheLogRules(@TempDir Path dir) throws Exception {
        ScheduledExecutorService scanner = Executors.newSingleThreadScheduledExecutor();
        CountDownLatch release = new CountDownLatch(1);
        try {
            scanner.execute(
                    () -> { // the scan thread is stuck, as on a hung NFS mount
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
            CheckpointMonitor checkpoints = new CheckpointMonitor(
                    new CheckpointRule(Optional.empty(), Optional.empty(), OptionalLong.empty(), OptionalLong.of(60)),
                    new CheckpointLocator(dir, ".metadata"),
                    InstantSource.system());
            LogRule rule = LogRule.builder("Beat", ".*beat.*")
                    .expectedRecurringFrequencyInSeconds(1)
                    .build();
            CountDownLatch fired = new CountDownLatch(1);
            List<RuleViolation> seen = new CopyOnWriteArrayList<>();
            try (RuleWatch watch = new RuleWatch(
                    List.of(rule),
                    Optional.of(checkpoints),
                    InstantSource.system(),
                    ticker,
                    scanner,
                    v -> {
                        seen.add(v);
                        fired.countDown();
                    },
                    progress -> {})) {
                write(watch.observer(), OutputObserver.Stream.STDOUT, "beat 1\n");
                long lastBeat = System.nanoTime();
                assertTrue(fired.await(5, TimeUnit.SECONDS), "the log rule waited for the stuck scan");
                long after = Duration.ofNanos(System.nanoTime() - lastBeat).toMillis();
                assertTrue(after >= 1000 && after < 1000 + 500, after + " ms");
                watch.awaitHandler(Duration.ofSeconds(5));
            }
            assertEquals("Beat", seen.get(0).rule());
        } finally {
            release.countDown();
            scanner.shutdownNow();
        }
    }

    @Test
    void onlyTheFirstViolationIsHandedOn() throws Exception {
        LogRule loss = LogRule.builder("Loss", "loss=(\\S+)")
                .metric(org.slurmautoresume.supervisor.rules.MetricOperator.GT, 5)
                .build();
        LogRule other = LogRule.builder("Other", "x=(\\S+)")
                .metric(org.slurmautoresume.supervisor.rules.MetricOperator.GT, 5)
                .build();
        List<RuleViolation> seen = new CopyOnWriteArrayList<>();
        try (RuleWatch watch = new RuleWatch(List.of(loss, other), InstantSource.system(), ticker, seen::add)) {
            write(watch.observer(), OutputObserver.Stream.STDOUT, "loss=9\nx=9\nloss=10\n");
            watch.awaitHandler(Duration.ofSeconds(5));
            assertEquals("Loss", watch.violation().orElseThrow().rule());
        }
        assertEquals(1, seen.size());
    }
}
