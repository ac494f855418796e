package org.slurmautoresume.supervisor.rules;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * One entry of {@code logMonitoringConfiguration}, under the names HyperPod users already write.
 * The configuration layer reports bad values with the file and field; this constructor only
 * guards against programming errors.
 *
 * @param name                                the rule's name, shown in every report about it
 * @param logPattern                          regular expression; must match at the start of a line
 *                                            (like Python's {@code re.match}), so patterns usually
 *                                            begin with {@code .*}
 * @param stopPattern                         a line matching it switches the rule off for the rest
 *                                            of the attempt
 * @param expectedStartCutOffInSeconds        the first match must come within this long of the start
 * @param expectedRecurringFrequencyInSeconds after a match, the next must come within this long
 * @param metricThreshold                     compared with capture group 1 of {@code logPattern}
 * @param operator                            how the metric is compared; needed with a threshold
 * @param metricEvaluationDataPoints          consecutive bad data points before the rule is SLOW
 * @param longerWait                          after a match whose line contains its text, the next
 *                                            match may take this long instead (the heartbeat's
 *                                            checkpoint phase); not a field users write
 */
public record LogRule(
        String name,
        String logPattern,
        Optional<String> stopPattern,
        OptionalLong expectedStartCutOffInSeconds,
        OptionalLong expectedRecurringFrequencyInSeconds,
        OptionalDouble metricThreshold,
        Optional<MetricOperator> operator,
        int metricEvaluationDataPoints,
        Optional<LongerWait> longerWait) {

    public static final int DEFAULT_DATA_POINTS = 1;

    /** After a matching line that also contains {@code text}, the next match may take {@code seconds}. */
    public record LongerWait(String text, long seconds) {
        public LongerWait {
            if (text.isEmpty() || seconds <= 0) {
                throw new IllegalArgumentException("a longer wait needs a text and a positive duration");
            }
        }
    }

    public LogRule {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(logPattern, "logPattern");
        Objects.requireNonNull(stopPattern, "stopPattern");
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(longerWait, "longerWait");
        if (metricThreshold.isPresent() != operator.isPresent()) {
            throw new IllegalArgumentException(name + ": metricThreshold and operator go together");
        }
        if (metricThreshold.isPresent()
                && Pattern.compile(logPattern).matcher("").groupCount() < 1) {
            throw new IllegalArgumentException(name + ": metricThreshold needs a capture group in logPattern");
        }
        if (metricEvaluationDataPoints < 1) {
            throw new IllegalArgumentException(name + ": metricEvaluationDataPoints must be 1 or more");
        }
        positive(name, expectedStartCutOffInSeconds);
        positive(name, expectedRecurringFrequencyInSeconds);
    }

    private static void positive(String name, OptionalLong seconds) {
        if (seconds.isPresent() && seconds.getAsLong() <= 0) {
            throw new IllegalArgumentException(name + ": durations must be positive");
        }
    }

    public boolean hasMetric() {
        return metricThreshold.isPresent();
    }

    public static Builder builder(String name, String logPattern) {
        return new Builder(name, logPattern);
    }

    /** Fills in the optional fields one by one; what is not set stays absent. */
    public static final class Builder {
        private final String name;
        private final String logPattern;
        private Optional<String> stopPattern = Optional.empty();
        private OptionalLong startCutOff = OptionalLong.empty();
        private OptionalLong recurringFrequency = OptionalLong.empty();
        private OptionalDouble threshold = OptionalDouble.empty();
        private Optional<MetricOperator> operator = Optional.empty();
        private int dataPoints = DEFAULT_DATA_POINTS;
        private Optional<LongerWait> longerWait = Optional.empty();

        private Builder(String name, String logPattern) {
            this.name = name;
            this.logPattern = logPattern;
        }

        public Builder stopPattern(String pattern) {
            this.stopPattern = Optional.of(pattern);
            return this;
        }

        public Builder expectedStartCutOffInSeconds(long seconds) {
            this.startCutOff = OptionalLong.of(seconds);
            return this;
        }

        public Builder expectedRecurringFrequencyInSeconds(long seconds) {
            this.recurringFrequency = OptionalLong.of(seconds);
            return this;
        }

        public Builder metric(MetricOperator operator, double threshold) {
            this.operator = Optional.of(operator);
            this.threshold = OptionalDouble.of(threshold);
            return this;
        }

        public Builder metricEvaluationDataPoints(int points) {
            this.dataPoints = points;
            return this;
        }

        public Builder longerWaitAfter(String text, long seconds) {
            this.longerWait = Optional.of(new LongerWait(text, seconds));
            return this;
        }

        public LogRule build() {
            return new LogRule(
                    name,
                    logPattern,
                    stopPattern,
                    startCutOff,
                    recurringFrequency,
                    threshold,
                    operator,
                    dataPoints,
                    longerWait);
        }
    }
}
