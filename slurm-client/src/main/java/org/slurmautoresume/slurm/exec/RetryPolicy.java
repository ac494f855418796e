package org.slurmautoresume.slurm.exec;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * When and how often to try a Slurm command again. Only errors that mean "the controller did
 * not get or did not answer the request" are retried: those are safe to repeat.
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, boolean retryTimeouts) {

    /** Messages Slurm prints when the controller is briefly unreachable or overloaded. */
    private static final List<String> TRANSIENT_MARKERS = List.of(
            "unable to contact slurm controller",
            "socket timed out on send/recv operation",
            "socket timed out",
            "slurm backup controller in standby mode",
            "zero bytes were transmitted or received",
            "communication connection failure",
            "connection refused",
            "resource temporarily unavailable",
            "slurmctld is not responding");

    public static final RetryPolicy DEFAULT = new RetryPolicy(4, Duration.ofMillis(250), Duration.ofSeconds(4), true);
    public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, Duration.ZERO, false);

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
        }
        if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("backoff must satisfy 0 <= initial <= max");
        }
    }

    /** True when this failed result is worth another attempt. */
    public boolean isTransient(CommandResult result) {
        if (result.succeeded()) {
            return false;
        }
        if (result.timedOut()) {
            return retryTimeouts;
        }
        return mentionsUnreachableController(result.stderr() + "\n" + result.stdout());
    }

    /**
     * Whether {@code text} (a Slurm command's words, or another process's report of them) says
     * the controller did not get or did not answer a request.
     */
    public static boolean mentionsUnreachableController(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        for (String marker : TRANSIENT_MARKERS) {
            if (lower.contains(marker)) {
                return true;
            }
        }
        return false;
    }

    /** Back-off before attempt {@code attempt} (2, 3, ...): doubling, capped. */
    public Duration backoffBefore(int attempt) {
        Duration delay = initialBackoff;
        for (int i = 2; i < attempt && delay.compareTo(maxBackoff) < 0; i++) {
            delay = delay.multipliedBy(2);
        }
        return delay.compareTo(maxBackoff) > 0 ? maxBackoff : delay;
    }
}
