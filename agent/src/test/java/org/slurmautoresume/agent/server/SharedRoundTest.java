package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** One run shared by everyone who asks while it runs or within the reuse time after; a clock we turn by hand. */
class SharedRoundTest {

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final AtomicInteger runs = new AtomicInteger();
    private final SharedRound<Integer> round = new SharedRound<>(Duration.ofSeconds(10), nanos::get);

    private CompletableFuture<Integer> ask() {
        return round.ask(Runnable::run, runs::incrementAndGet);
    }

    @Test
    void asksWithinTheReuseTimeShareTheRunAndTheFirstAfterItStartsAnother() throws Exception {
        assertEquals(1, ask().get());
        nanos.addAndGet(Duration.ofMillis(9_999).toNanos());
        assertEquals(1, ask().get(), "within the reuse time: the same run");
        assertEquals(1, runs.get());
        nanos.addAndGet(Duration.ofMillis(1).toNanos());
        assertEquals(2, ask().get(), "the reuse time is over: a new run");
        assertEquals(2, runs.get());
    }

    @Test
    void theReuseTimeCountsFromTheEndOfTheRunNotItsStart() throws Exception {
        SharedRound<Integer> slow = new SharedRound<>(Duration.ofSeconds(10), nanos::get);
        slow.ask(Runnable::run, () -> {
                    nanos.addAndGet(Duration.ofSeconds(60).toNanos()); // a command that ran for a minute
                    return runs.incrementAndGet();
                })
                .get();
        nanos.addAndGet(Duration.ofSeconds(5).toNanos());
        assertEquals(1, slow.ask(Runnable::run, runs::incrementAndGet).get(), "5 s after it ended: shared");
        assertEquals(1, runs.get());
    }

    @Test
    void withNoReuseTimeOnlyAsksWhileItRunsShareIt() throws Exception {
        SharedRound<Integer> none = new SharedRound<>(Duration.ZERO, nanos::get);
        CompletableFuture<Integer> running = none.ask(command -> {}, runs::incrementAndGet); // never runs
        assertSame(running, none.ask(Runnable::run, runs::incrementAndGet), "asked while the first runs");
        assertEquals(0, runs.get());
        assertEquals(
                1,
                new SharedRound<Integer>(Duration.ZERO, nanos::get)
                        .ask(Runnable::run, runs::incrementAndGet)
                        .get());
        SharedRound<Integer> done = new SharedRound<>(Duration.ZERO, nanos::get);
        done.ask(Runnable::run, runs::incrementAndGet).get();
        done.ask(Runnable::run, runs::incrementAndGet).get();
        assertEquals(3, runs.get(), "each ask after the run ended runs again");
    }

    @Test
    void aRunThatThrowsIsSharedAsAFailureAndNotRetriedByEveryAsker() {
        CompletableFuture<Integer> first = round.ask(Runnable::run, () -> {
            runs.incrementAndGet();
            throw new IllegalStateException("broken");
        });
        CompletableFuture<Integer> second = ask();
        assertSame(first, second);
        ExecutionException e = assertThrows(ExecutionException.class, second::get);
        assertTrue(e.getCause() instanceof IllegalStateException, e.toString());
        assertEquals(1, runs.get());
    }

    @Test
    void aRunTheExecutorRefusesFailsItsAskers() {
        CompletableFuture<Integer> refused = round.ask(
                command -> {
                    throw new RejectedExecutionException("closed");
                },
                runs::incrementAndGet);
        assertTrue(refused.isCompletedExceptionally());
        assertEquals(0, runs.get());
    }
}
