package org.slurmautoresume.supervisor.config;

import static org.slurmautoresume.supervisor.config.FieldReader.absent;
import static org.slurmautoresume.supervisor.config.FieldReader.child;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.slurmautoresume.supervisor.rules.LogRule;
import org.slurmautoresume.supervisor.rules.MetricOperator;

/** Reads and checks {@code logMonitoringConfiguration}: the list of log rules. */
final class RuleSection {

    static final String FIELD = "logMonitoringConfiguration";
    static final Set<String> RULE_FIELDS = Set.of("name", "logPattern", "stopPattern", "expectedStartCutOffInSeconds",
            "expectedRecurringFrequencyInSeconds", "metricThreshold", "operator", "metricEvaluationDataPoints");

    private RuleSection() {
    }

    /**
     * Checks every rule; with {@code complete} (the effective configuration) also what needs the
     * whole rule (a pattern, threshold with operator) and returns the rules, else an empty list.
     * {@code origins} names the file(s) each rule came from, for problems about a whole rule.
     */
    static List<LogRule> read(JsonNode list, String path, FieldReader in, boolean complete, Map<String, String> origins) {
        if (absent(list)) {
            return List.of();
        }
        if (!list.isArray()) {
            in.error(path, "expected a list of rules, found " + FieldReader.describe(list));
            return List.of();
        }
        List<LogRule> rules = new ArrayList<>();
        Set<String> names = new HashSet<>();
        String defaultFile = in.file();
        for (int i = 0; i < list.size(); i++) {
            String where = path + "[" + i + "]";
            JsonNode node = list.get(i);
            if (!node.isObject()) {
                in.error(where, "expected a rule (a mapping with name and logPattern), found " + FieldReader.describe(node));
                continue;
            }
            Optional<String> name = in.text(node, "name", where);
            if (name.isPresent() && origins.containsKey(name.get())) {
                in.attributeTo(origins.get(name.get()));
            }
            Optional<LogRule> rule = readRule(node, where, name, in, complete);
            in.attributeTo(defaultFile);
            if (name.isPresent() && !names.add(name.get())) {
                in.error(child(where, "name"), "\"" + name.get() + "\" is already the name of another rule");
            }
            rule.ifPresent(rules::add);
        }
        return complete ? rules : List.of();
    }

    private static Optional<LogRule> readRule(JsonNode node, String where, Optional<String> name, FieldReader in,
                                              boolean complete) {
        int before = in.problemCount();
        in.rejectUnknownFields(node, RULE_FIELDS, where);
        if (name.isEmpty() && absent(node.get("name"))) {
            in.error(child(where, "name"), "every rule needs a name (rules are merged and reported by it)");
        } else if (name.isPresent() && name.get().isBlank()) {
            in.error(child(where, "name"), "must not be empty");
        }
        Optional<Pattern> logPattern = regex(node, "logPattern", where, in);
        regex(node, "stopPattern", where, in);
        OptionalLong startCutOff = in.wholeNumber(node, "expectedStartCutOffInSeconds", where, 1);
        OptionalLong recurring = in.wholeNumber(node, "expectedRecurringFrequencyInSeconds", where, 1);
        OptionalDouble threshold = in.number(node, "metricThreshold", where);
        Optional<MetricOperator> operator = operator(node, where, in);
        OptionalLong dataPoints = in.wholeNumber(node, "metricEvaluationDataPoints", where, 1);
        if (!complete) {
            return Optional.empty();
        }
        if (absent(node.get("logPattern"))) {
            in.error(child(where, "logPattern"), "every rule needs a logPattern");
        }
        boolean hasThreshold = !absent(node.get("metricThreshold"));
        boolean hasOperator = !absent(node.get("operator"));
        if (hasThreshold && !hasOperator) {
            in.error(child(where, "operator"), "metricThreshold needs an operator (" + MetricOperator.allConfigNames() + ")");
        }
        if (hasOperator && !hasThreshold) {
            in.error(child(where, "metricThreshold"), "operator needs a metricThreshold to compare with");
        }
        if (hasThreshold && logPattern.isPresent() && logPattern.get().matcher("").groupCount() < 1) {
            in.error(child(where, "metricThreshold"), "logPattern has no capture group to read the metric from;"
                    + " put the number in parentheses, e.g. \"loss: (\\\\d+(\\\\.\\\\d+)?)\"");
        }
        if (dataPoints.isPresent() && !hasThreshold) {
            in.warning(child(where, "metricEvaluationDataPoints"), "has no effect without metricThreshold");
        }
        if (!hasThreshold && absent(node.get("expectedStartCutOffInSeconds"))
                && absent(node.get("expectedRecurringFrequencyInSeconds"))) {
            in.warning(where, "this rule can never be violated: give it expectedStartCutOffInSeconds,"
                    + " expectedRecurringFrequencyInSeconds or metricThreshold");
        }
        if (in.hasErrorsSince(before)) {
            return Optional.empty();
        }
        LogRule.Builder rule = LogRule.builder(name.orElseThrow(), node.get("logPattern").asText());
        in.text(node, "stopPattern", where).ifPresent(rule::stopPattern);
        startCutOff.ifPresent(rule::expectedStartCutOffInSeconds);
        recurring.ifPresent(rule::expectedRecurringFrequencyInSeconds);
        if (threshold.isPresent()) {
            rule.metric(operator.orElseThrow(), threshold.getAsDouble());
        }
        dataPoints.ifPresent(points -> rule.metricEvaluationDataPoints((int) points));
        return Optional.of(rule.build());
    }

    private static Optional<Pattern> regex(JsonNode node, String field, String where, FieldReader in) {
        Optional<String> text = in.text(node, field, where);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Pattern.compile(text.get(), Pattern.DOTALL));
        } catch (PatternSyntaxException e) {
            String at = e.getIndex() >= 0 ? " at position " + e.getIndex() : "";
            in.error(child(where, field), "bad regular expression" + at + ": " + e.getDescription()
                    + " in \"" + text.get() + "\"");
            return Optional.empty();
        }
    }

    private static Optional<MetricOperator> operator(JsonNode node, String where, FieldReader in) {
        Optional<String> text = in.text(node, "operator", where);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        Optional<MetricOperator> operator = MetricOperator.fromConfigName(text.get());
        if (operator.isEmpty()) {
            in.error(child(where, "operator"), "unknown operator \"" + text.get() + "\"; use one of "
                    + MetricOperator.allConfigNames());
        }
        return operator;
    }
}
