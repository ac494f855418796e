package org.slurmautoresume.supervisor.rules;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * How a metric value is compared with {@code metricThreshold}. A data point for which the
 * comparison holds is a bad one: {@code lteq 80} on samples/sec flags 80 and below.
 */
public enum MetricOperator {
    GT("gt"),
    GTEQ("gteq"),
    LT("lt"),
    LTEQ("lteq"),
    EQ("eq");

    private final String configName;

    MetricOperator(String configName) {
        this.configName = configName;
    }

    /** The name written in configuration files: {@code gt}, {@code gteq}, ... */
    public String configName() {
        return configName;
    }

    /** True when {@code value OPERATOR threshold} holds, i.e. the data point breaches. */
    public boolean breaches(double value, double threshold) {
        return switch (this) {
            case GT -> value > threshold;
            case GTEQ -> value >= threshold;
            case LT -> value < threshold;
            case LTEQ -> value <= threshold;
            case EQ -> value == threshold;
        };
    }

    public static Optional<MetricOperator> fromConfigName(String name) {
        String wanted = name.strip().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(o -> o.configName.equals(wanted)).findFirst();
    }

    /** "gt, gteq, lt, lteq, eq", for error messages. */
    public static String allConfigNames() {
        return Arrays.stream(values()).map(MetricOperator::configName).collect(Collectors.joining(", "));
    }
}
