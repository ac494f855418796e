package org.slurmautoresume.nodeops.lemon;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;

/**
 * A node the toolkit marked faulty {@code marks} times within {@code window} is a lemon: it is
 * kept out of service for a person to look at instead of being returned once more. Large
 * clusters lose most large jobs to a few nodes that fail again and again. {@code marks} 0 turns
 * the rule off.
 */
public record LemonRule(int marks, Duration window) {

    public static final LemonRule DEFAULT = new LemonRule(3, Duration.ofDays(7));
    public static final LemonRule OFF = new LemonRule(0, Duration.ofDays(7));

    public LemonRule {
        if (marks < 0) {
            throw new IllegalArgumentException("marks must be 0 (off) or more, not " + marks);
        }
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("the window must be longer than zero, not " + window);
        }
    }

    public boolean enabled() {
        return marks > 0;
    }

    /** Where a node's history must start for {@link #judge} at {@code now}. */
    public LocalDateTime since(LocalDateTime now) {
        return now.minus(window);
    }

    /** The verdict on a node whose fault marks (oldest first, forgiven ones left out) are {@code history}. */
    public LemonVerdict judge(List<FaultMark> history, LocalDateTime now) {
        LocalDateTime since = since(now);
        List<FaultMark> counted = history.stream()
                .filter(m -> !m.time().isBefore(since) && !m.time().isAfter(now))
                .toList();
        return new LemonVerdict(enabled() && counted.size() >= marks, counted, this);
    }

    /** {@code 3 in 7 days}, as the reason and the listing say it. */
    public String describe() {
        return marks + " in " + span();
    }

    /** The window in words: {@code 7 days}, {@code 1 hour}, {@code 90 seconds}. */
    public String span() {
        long seconds = window.toSeconds();
        return seconds % 86_400 == 0
                ? plural(seconds / 86_400, "day")
                : seconds % 3_600 == 0 ? plural(seconds / 3_600, "hour") : plural(seconds, "second");
    }

    private static String plural(long n, String unit) {
        return n + " " + unit + (n == 1 ? "" : "s");
    }
}
