package org.slurmautoresume.bridge.exec;

import java.util.Locale;

/**
 * Whether debug lines are wanted at all, answered without starting the logging framework.
 * Logback reads its root level from {@code AUTORESUME_LOG_LEVEL} (default WARN); asking SLF4J
 * whether DEBUG is enabled would load and configure Logback first, about 500 classes and an
 * XML parser, which a supervised srun that runs {@code scontrol} paid on every start (issue 3's
 * overhead went from 132 ms to 370 ms that way). Code on the supervisor's path asks here first.
 */
public final class DebugLogging {

    private static final boolean WANTED = wanted(System.getenv("AUTORESUME_LOG_LEVEL"));

    private DebugLogging() {
    }

    public static boolean wanted() {
        return WANTED;
    }

    static boolean wanted(String level) {
        if (level == null) {
            return false;
        }
        String word = level.strip().toUpperCase(Locale.ROOT);
        return word.equals("DEBUG") || word.equals("TRACE") || word.equals("ALL");
    }
}
