package org.slurmautoresume.supervisor.checkpoint;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@code runPolicy.checkpointMonitoring}: complete checkpoints must keep appearing, or the attempt
 * is HANGING. It catches the job that still prints but no longer saves (a hung writer, a full
 * disk), which a log rule on its output cannot. The configuration layer reports bad values with
 * the file and field; this constructor only guards against programming errors.
 *
 * @param directory                           where the checkpoints are written, unless the step's
 *                                            {@value CheckpointLocator#DIR} is set (it wins)
 * @param marker                              the file a complete checkpoint holds, unless the
 *                                            step's {@value CheckpointLocator#MARKER} is set;
 *                                            neither: {@value CheckpointLocator#DEFAULT_MARKER}
 * @param expectedStartCutOffInSeconds        the attempt's first new complete checkpoint must come
 *                                            within this long of its start
 * @param expectedRecurringFrequencyInSeconds after a new complete checkpoint, the next must come
 *                                            within this long
 */
public record CheckpointRule(
        Optional<String> directory,
        Optional<String> marker,
        OptionalLong expectedStartCutOffInSeconds,
        OptionalLong expectedRecurringFrequencyInSeconds) {

    /** The rule's name in reports, events and the restart policy's reasons. */
    public static final String NAME = "checkpoint";
    /** Why a step cannot be watched when {@link #locator} finds no directory. */
    public static final String NO_DIRECTORY = "runPolicy.checkpointMonitoring.directory: no directory to watch;"
            + " set it, or set " + CheckpointLocator.DIR + " in the step's environment";
    /** Scans need not come more often than this, however short the limits. */
    static final Duration FASTEST_SCAN = Duration.ofSeconds(1);
    /** Nor less often than this, however long: a scan is a directory listing. */
    static final Duration SLOWEST_SCAN = Duration.ofSeconds(5);

    public CheckpointRule {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(marker, "marker");
        marker.flatMap(CheckpointLocator::markerProblem).ifPresent(problem -> {
            throw new IllegalArgumentException("marker " + problem);
        });
        for (OptionalLong seconds :
                new OptionalLong[] {expectedStartCutOffInSeconds, expectedRecurringFrequencyInSeconds}) {
            if (seconds.isPresent() && seconds.getAsLong() <= 0) {
                throw new IllegalArgumentException(NAME + ": durations must be positive");
            }
        }
    }

    /**
     * How often to look: a quarter of the shortest limit, between {@link #FASTEST_SCAN} and
     * {@link #SLOWEST_SCAN}. A deadline is also checked on time by a scan of its own, so this bounds
     * how stale the picture is, not how late a detection comes.
     */
    public Duration scanInterval() {
        long shortest = Math.min(
                expectedStartCutOffInSeconds.orElse(Long.MAX_VALUE),
                expectedRecurringFrequencyInSeconds.orElse(Long.MAX_VALUE));
        if (shortest == Long.MAX_VALUE) {
            return SLOWEST_SCAN;
        }
        Duration quarter = Duration.ofSeconds(shortest).dividedBy(4);
        return quarter.compareTo(FASTEST_SCAN) < 0
                ? FASTEST_SCAN
                : quarter.compareTo(SLOWEST_SCAN) > 0 ? SLOWEST_SCAN : quarter;
    }

    /**
     * Where to look for a step with this environment: what the environment names when it does
     * (the supervisor's one precedence: a variable that is set beats the files), else
     * {@link #directory} and {@link #marker}. Empty when neither names a directory.
     */
    public Optional<CheckpointLocator> locator(Map<String, String> environment) {
        return CheckpointLocator.resolve(
                setOr(environment.get(CheckpointLocator.DIR), directory),
                setOr(environment.get(CheckpointLocator.MARKER), marker),
                environment);
    }

    private static String setOr(String variable, Optional<String> fromFile) {
        return variable != null && !variable.isBlank() ? variable : fromFile.orElse(null);
    }
}
