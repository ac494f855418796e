package org.slurmautoresume.supervisor.step;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * A read from Slurm started on a daemon thread of its own, so that slurmctld answers while the
 * supervisor builds itself and starts srun: a supervised start pays for Slurm's round trips only
 * where they are longer than that work. A plain thread, not the common pool: starting the pool
 * costs a supervised start more than the thread does.
 */
final class ReadAhead {

    private ReadAhead() {}

    static <T> CompletableFuture<T> start(String name, Supplier<T> read) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(
                () -> {
                    try {
                        result.complete(read.get());
                    } catch (RuntimeException | Error e) {
                        result.completeExceptionally(e);
                    }
                },
                name);
        thread.setDaemon(true);
        thread.start();
        return result;
    }

    /** The read's value, waiting for it; what the read threw, as it threw it, when it failed. */
    static <T> T join(CompletableFuture<T> read) {
        try {
            return read.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            if (e.getCause() instanceof Error cause) {
                throw cause;
            }
            throw e;
        }
    }
}
