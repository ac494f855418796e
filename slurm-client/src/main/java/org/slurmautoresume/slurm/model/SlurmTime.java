package org.slurmautoresume.slurm.model;

import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** Slurm prints local times as {@code 2026-11-22T04:05:06}, or words for "no time". */
public final class SlurmTime {

    private SlurmTime() {
    }

    public static Optional<LocalDateTime> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String trimmed = text.strip();
        if (trimmed.length() < 19 || trimmed.charAt(4) != '-' || trimmed.charAt(10) != 'T') {
            return Optional.empty(); // Unknown, None, N/A, (null), 0
        }
        try {
            return Optional.of(LocalDateTime.parse(trimmed.substring(0, 19)));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
