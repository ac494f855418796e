package org.slurmautoresume.supervisor.rules;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A rule that reached SLOW, HANGING or FAULTED, with the evidence an operator needs to believe it.
 *
 * @param rule          the rule's name
 * @param state         SLOW, HANGING or FAULTED
 * @param reason        one sentence: which limit was passed, by how much
 * @param startedAt     when monitoring of this attempt began
 * @param detectedAt    when the violation was found
 * @param lastMatchAt   the last line matching {@code logPattern}, if any; for the checkpoint rule,
 *                      when the attempt's newest new checkpoint was written
 * @param lastMatchLine that line (capped like every line the monitor sees); for the checkpoint
 *                      rule, that checkpoint's path
 * @param lastMatchStream the stream it came on
 * @param matches       how many lines matched in this attempt; for the checkpoint rule, how many
 *                      new checkpoints appeared
 * @param dataPoints    for SLOW and FAULTED: the run of bad data points, oldest first (at most
 *                      {@link RuleTracker#KEPT_POINTS})
 * @param source        which kind of rule found it
 */
public record RuleViolation(
        String rule,
        RuleState state,
        String reason,
        Instant startedAt,
        Instant detectedAt,
        Optional<Instant> lastMatchAt,
        Optional<String> lastMatchLine,
        Optional<OutputObserver.Stream> lastMatchStream,
        long matches,
        List<DataPoint> dataPoints,
        Source source) {

    /** The kinds of rule, as reports and the job's timeline name them. */
    public enum Source {
        LOG_RULE("log-rule", "the last match"),
        CHECKPOINT_RULE("checkpoint-rule", "the newest checkpoint");

        private final String eventName;
        private final String evidence;

        Source(String eventName, String evidence) {
            this.eventName = eventName;
            this.evidence = evidence;
        }

        /** The {@code source} of a detection event. */
        public String eventName() {
            return eventName;
        }
    }

    public RuleViolation {
        dataPoints = List.copyOf(dataPoints);
    }

    /** A log rule's violation. */
    public RuleViolation(
            String rule,
            RuleState state,
            String reason,
            Instant startedAt,
            Instant detectedAt,
            Optional<Instant> lastMatchAt,
            Optional<String> lastMatchLine,
            Optional<OutputObserver.Stream> lastMatchStream,
            long matches,
            List<DataPoint> dataPoints) {
        this(
                rule,
                state,
                reason,
                startedAt,
                detectedAt,
                lastMatchAt,
                lastMatchLine,
                lastMatchStream,
                matches,
                dataPoints,
                Source.LOG_RULE);
    }

    /** How long after the start the violation was found. */
    public Duration detectedAfter() {
        return Duration.between(startedAt, detectedAt);
    }

    /** The rule as reports name it: {@code log rule "Heartbeat"}, {@code checkpoint rule}. */
    public String title() {
        return source == Source.LOG_RULE ? "log rule \"" + rule + "\"" : "checkpoint rule";
    }

    /** What {@link #lastMatchAt} is, or the start when there is none: the detection's latency counts from it. */
    public String evidenceName() {
        return lastMatchAt.isPresent() ? source.evidence : "the start";
    }

    /** One log line: rule, state, why, and the last matching line. */
    public String describe() {
        StringBuilder text = new StringBuilder(title())
                .append(" is ")
                .append(state)
                .append(": ")
                .append(reason);
        if (source != Source.LOG_RULE) {
            return text.toString(); // its reason carries its evidence: no line was involved
        }
        if (lastMatchLine.isPresent()) {
            text.append("; last match at ")
                    .append(lastMatchAt.map(Instant::toString).orElse("?"))
                    .append(" on ")
                    .append(lastMatchStream.map(OutputObserver.Stream::tag).orElse("?"))
                    .append(": \"")
                    .append(lastMatchLine.get())
                    .append('"');
        } else {
            text.append("; no line matched since ").append(startedAt);
        }
        return text.toString();
    }

    /** A duration as the reasons give it: whole seconds when whole, else one decimal. */
    public static String seconds(long millis) {
        return millis % 1000 == 0 ? Long.toString(millis / 1000) : String.format(Locale.ROOT, "%.1f", millis / 1000.0);
    }
}
