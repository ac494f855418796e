package org.slurmautoresume.bridge.rules;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.bridge.step.OutputObserver;

/**
 * A rule that reached SLOW, HANGING or FAULTED, with the evidence an operator needs to believe it.
 *
 * @param rule          the rule's name
 * @param state         SLOW, HANGING or FAULTED
 * @param reason        one sentence: which limit was passed, by how much
 * @param startedAt     when monitoring of this attempt began
 * @param detectedAt    when the violation was found
 * @param lastMatchAt   the last line matching {@code logPattern}, if any
 * @param lastMatchLine that line (capped like every line the monitor sees)
 * @param lastMatchStream the stream it came on
 * @param matches       how many lines matched in this attempt
 * @param dataPoints    for SLOW and FAULTED: the run of bad data points, oldest first (at most
 *                      {@link RuleTracker#KEPT_POINTS})
 */
public record RuleViolation(String rule, RuleState state, String reason, Instant startedAt, Instant detectedAt,
                            Optional<Instant> lastMatchAt, Optional<String> lastMatchLine,
                            Optional<OutputObserver.Stream> lastMatchStream, long matches,
                            List<DataPoint> dataPoints) {

    public RuleViolation {
        dataPoints = List.copyOf(dataPoints);
    }

    /** How long after the start the violation was found. */
    public Duration detectedAfter() {
        return Duration.between(startedAt, detectedAt);
    }

    /** One log line: rule, state, why, and the last matching line. */
    public String describe() {
        StringBuilder text = new StringBuilder("log rule \"").append(rule).append("\" is ").append(state)
                .append(": ").append(reason);
        if (lastMatchLine.isPresent()) {
            text.append("; last match at ").append(lastMatchAt.map(Instant::toString).orElse("?"))
                    .append(" on ").append(lastMatchStream.map(OutputObserver.Stream::tag).orElse("?"))
                    .append(": \"").append(lastMatchLine.get()).append('"');
        } else {
            text.append("; no line matched since ").append(startedAt);
        }
        return text.toString();
    }
}
