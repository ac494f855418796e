package org.slurmautoresume.nodeops.sweep;

import java.time.Duration;

/** Durations as people read them in reports: {@code 2h05m}, {@code 7m30s}, {@code 42s}. */
final class Ages {

    private Ages() {}

    static String describe(Duration duration) {
        long seconds = Math.max(0, duration.toSeconds());
        if (seconds < 60) {
            return seconds + "s";
        }
        if (seconds < 3600) {
            return (seconds / 60) + "m" + String.format("%02ds", seconds % 60);
        }
        if (seconds < 86_400) {
            return (seconds / 3600) + "h" + String.format("%02dm", (seconds % 3600) / 60);
        }
        return (seconds / 86_400) + "d" + String.format("%02dh", (seconds % 86_400) / 3600);
    }
}
