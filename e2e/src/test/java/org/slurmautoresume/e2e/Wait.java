package org.slurmautoresume.e2e;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/** Polls a condition until it holds or a deadline passes; the failure says what was awaited and last seen. */
final class Wait {

    private static final Duration POLL = Duration.ofMillis(250);

    private Wait() {}

    static <T> T until(String what, Duration timeout, Supplier<Optional<T>> probe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Object last = null;
        while (true) {
            Optional<T> value;
            try {
                value = probe.get();
            } catch (RuntimeException e) {
                value = Optional.empty();
                last = e.getMessage();
            }
            if (value.isPresent()) {
                return value.get();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what
                        + (last == null ? "" : " (last error: " + last + ")"));
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }
}
