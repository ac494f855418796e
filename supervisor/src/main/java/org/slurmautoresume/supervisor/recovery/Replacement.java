package org.slurmautoresume.supervisor.recovery;

import java.util.Optional;

/** The replacement providers, by the names users configure ({@code AUTORESUME_REPLACEMENT}). */
public enum Replacement {
    SPARE("spare"),
    SAME_HOSTNAME("same-hostname"),
    COMMAND("command"),
    REBOOT("reboot");

    private final String word;

    Replacement(String word) {
        this.word = word;
    }

    public String word() {
        return word;
    }

    /** The provider a word names, case aside; empty for any other word. */
    public static Optional<Replacement> byWord(String word) {
        for (Replacement r : values()) {
            if (r.word.equalsIgnoreCase(word)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }
}
