package org.slurmautoresume.slurm.exec;

import java.util.Locale;
import org.slf4j.LoggerFactory;

/**
 * Whether debug lines are wanted at all, answered without starting the logging framework.
 * Logback reads its root level from {@code AUTORESUME_LOG_LEVEL} (default WARN); asking SLF4J
 * whether DEBUG is enabled would load and configure Logback first, about 500 classes and an
 * XML parser, which a supervised srun that runs {@code scontrol} would pay on every start (about
 * 240 ms, measured: a supervised step's overhead of 132 ms became 370 ms). Code on the
 * supervisor's path asks here first.
 */
public final class DebugLogging {

    private static final boolean WANTED = wanted(System.getenv("AUTORESUME_LOG_LEVEL"));

    private DebugLogging() {}

    public static boolean wanted() {
        return WANTED;
    }

    /**
     * A debug line from {@code owner}'s logger, only when debug lines are wanted: otherwise SLF4J
     * is not touched at all. The one way code on the supervisor's path writes debug lines.
     */
    public static void debug(Class<?> owner, String format, Object... arguments) {
        if (WANTED) {
            LoggerFactory.getLogger(owner).debug(format, arguments);
        }
    }

    static boolean wanted(String level) {
        if (level == null) {
            return false;
        }
        String word = level.strip().toUpperCase(Locale.ROOT);
        return word.equals("DEBUG") || word.equals("TRACE") || word.equals("ALL");
    }
}
