package org.slurmautoresume.bridge.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.bridge.rules.LogRule;
import org.slurmautoresume.bridge.rules.RuleState;
import org.slurmautoresume.bridge.rules.RuleViolation;

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
        LogRule rule = LogRule.builder("Beat", ".*beat.*").expectedRecurringFrequencyInSeconds(1).build();
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
    void onlyTheFirstViolationIsHandedOn() throws Exception {
        LogRule loss = LogRule.builder("Loss", "loss=(\\S+)")
                .metric(org.slurmautoresume.bridge.rules.MetricOperator.GT, 5).build();
        LogRule other = LogRule.builder("Other", "x=(\\S+)")
                .metric(org.slurmautoresume.bridge.rules.MetricOperator.GT, 5).build();
        List<RuleViolation> seen = new CopyOnWriteArrayList<>();
        try (RuleWatch watch = new RuleWatch(List.of(loss, other), InstantSource.system(), ticker, seen::add)) {
            write(watch.observer(), OutputObserver.Stream.STDOUT, "loss=9\nx=9\nloss=10\n");
            watch.awaitHandler(Duration.ofSeconds(5));
            assertEquals("Loss", watch.violation().orElseThrow().rule());
        }
        assertEquals(1, seen.size());
    }
}
