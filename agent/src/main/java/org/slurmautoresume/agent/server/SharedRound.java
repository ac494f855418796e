package org.slurmautoresume.agent.server;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One run of something costly that everyone asking shares: whoever asks while a run is under
 * way, or within {@code reuse} after it ended, gets that run's result; only the first to ask
 * after that starts a new one. However many ask, the work runs at most once at a time and at
 * most once per {@code reuse} after the last run ended, so its cost stays bounded whoever
 * asks and how often. Nothing the askers say reaches the work.
 *
 * <p>Used where users' requests make root run checks: the agent's fresh-check port (the GPU
 * checks out of turn) and the site's health command asked for on a job's request.
 */
final class SharedRound<V> {

    private final long reuseNanos;
    private final LongSupplier nanoClock;
    /** The last run (running, or done); null before the first. Guarded by this. */
    private CompletableFuture<V> latest;
    /** When {@link #latest} ended, by {@link #nanoClock}; set before it completes. Guarded by this. */
    private long endedAt;

    SharedRound(Duration reuse, LongSupplier nanoClock) {
        if (reuse.isNegative()) {
            throw new IllegalArgumentException("a result cannot be reused for a negative time: " + reuse);
        }
        this.reuseNanos = reuse.toNanos();
        this.nanoClock = Objects.requireNonNull(nanoClock);
    }

    /**
     * The run under way, or the last one when it ended within the reuse time; otherwise a new run
     * of {@code work} on {@code runner} (which may be the caller's own thread: {@code Runnable::run}
     * runs it before this returns, outside any lock, while later askers wait on the same future).
     * A run that throws completes its future exceptionally, and so does one that {@code runner}
     * refuses; either is shared like a result, so a failing run is not retried by every asker.
     */
    CompletableFuture<V> ask(Executor runner, Supplier<V> work) {
        CompletableFuture<V> run;
        synchronized (this) {
            if (latest != null && (!latest.isDone() || nanoClock.getAsLong() - endedAt < reuseNanos)) {
                return latest;
            }
            run = new CompletableFuture<>();
            latest = run;
        }
        try {
            runner.execute(() -> {
                V result;
                try {
                    result = work.get();
                } catch (Throwable e) {
                    ended();
                    run.completeExceptionally(e);
                    if (e instanceof Error error) {
                        throw error;
                    }
                    return;
                }
                ended();
                run.complete(result);
            });
        } catch (RejectedExecutionException e) {
            ended();
            run.completeExceptionally(e);
        }
        return run;
    }

    private synchronized void ended() {
        endedAt = nanoClock.getAsLong();
    }
}
