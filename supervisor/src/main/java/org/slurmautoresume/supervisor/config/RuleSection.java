package org.slurmautoresume.supervisor.config;

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
import org.slurmautoresume.configfile.ConfigFields;
import org.slurmautoresume.configfile.Field;
import org.slurmautoresume.configfile.Problems;
import org.slurmautoresume.configfile.Quote;
import org.slurmautoresume.supervisor.rules.LogRule;
import org.slurmautoresume.supervisor.rules.MetricOperator;

/** Reads and checks {@code logMonitoringConfiguration}: the list of log rules. */
final class RuleSection {

    static final String FIELD = "logMonitoringConfiguration";
    static final Set<String> RULE_FIELDS = Set.of(
            "name",
            "logPattern",
            "stopPattern",
            "expectedStartCutOffInSeconds",
            "expectedRecurringFrequencyInSeconds",
            "metricThreshold",
            "operator",
            "metricEvaluationDataPoints");
    private static final long MAX = Integer.MAX_VALUE;

    private RuleSection() {}

    /**
     * Checks every rule; with {@code complete} (the effective configuration) also what needs the
     * whole rule (a pattern, threshold with operator) and returns the rules, else an empty list.
     * {@code origins} names the file(s) each rule came from, for problems about a rule: in a
     * merge, "site.yaml + job.yaml" would not say which file to open.
     */
    static List<LogRule> read(Field list, Problems problems, boolean complete, Map<String, String> origins) {
        List<LogRule> rules = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Field element : list.list("a list of rules")) {
            Problems attributed =
                    origin(element.node(), origins).map(problems::forFile).orElse(problems);
            Optional<ConfigFields> node = ConfigFields.of(
                    element.node(), element.path(), attributed, "a rule (a mapping with name and logPattern)");
            if (node.isEmpty()) {
                continue;
            }
            Optional<String> name = node.get().text("name");
            readRule(node.get(), name, complete).ifPresent(rules::add);
            if (name.isPresent() && !names.add(name.get())) {
                problems.error(
                        node.get().pathOf("name"), Quote.text(name.get()) + " is already the name of another rule");
            }
        }
        return complete ? rules : List.of();
    }

    private static Optional<String> origin(JsonNode rule, Map<String, String> origins) {
        JsonNode name = rule == null ? null : rule.get("name");
        return name != null && name.isTextual() ? Optional.ofNullable(origins.get(name.asText())) : Optional.empty();
    }

    private static Optional<LogRule> readRule(ConfigFields rule, Optional<String> name, boolean complete) {
        Problems problems = rule.problems();
        int mark = problems.mark();
        rule.accept(RULE_FIELDS);
        rule.rejectUnknown();
        if (name.isEmpty() && !rule.has("name")) {
            rule.error("name", "every rule needs a name (rules are merged and reported by it)");
        } else if (name.isPresent() && name.get().isBlank()) {
            rule.error("name", "must not be empty");
        }
        Optional<Pattern> logPattern = regex(rule, "logPattern");
        regex(rule, "stopPattern");
        OptionalLong startCutOff = rule.wholeNumber("expectedStartCutOffInSeconds", 1, MAX);
        OptionalLong recurring = rule.wholeNumber("expectedRecurringFrequencyInSeconds", 1, MAX);
        OptionalDouble threshold = rule.number("metricThreshold");
        Optional<MetricOperator> operator = operator(rule);
        OptionalLong dataPoints = rule.wholeNumber("metricEvaluationDataPoints", 1, MAX);
        if (!complete) {
            return Optional.empty();
        }
        if (!rule.has("logPattern")) {
            rule.error("logPattern", "every rule needs a logPattern");
        }
        boolean hasThreshold = rule.has("metricThreshold");
        boolean hasOperator = rule.has("operator");
        if (hasThreshold && !hasOperator) {
            rule.error("operator", "metricThreshold needs an operator (" + MetricOperator.allConfigNames() + ")");
        }
        if (hasOperator && !hasThreshold) {
            rule.error("metricThreshold", "operator needs a metricThreshold to compare with");
        }
        if (hasThreshold
                && logPattern.isPresent()
                && logPattern.get().matcher("").groupCount() < 1) {
            rule.error(
                    "metricThreshold",
                    "logPattern has no capture group to read the metric from;"
                            + " put the number in parentheses, e.g. \"loss: (\\\\d+(\\\\.\\\\d+)?)\"");
        }
        if (dataPoints.isPresent() && !hasThreshold) {
            rule.warning("metricEvaluationDataPoints", "has no effect without metricThreshold");
        }
        if (!hasThreshold
                && !rule.has("expectedStartCutOffInSeconds")
                && !rule.has("expectedRecurringFrequencyInSeconds")) {
            problems.warning(
                    rule.path(),
                    "this rule can never be violated: give it expectedStartCutOffInSeconds,"
                            + " expectedRecurringFrequencyInSeconds or metricThreshold");
        }
        if (problems.hasErrorsSince(mark)) {
            return Optional.empty();
        }
        LogRule.Builder built =
                LogRule.builder(name.orElseThrow(), logPattern.orElseThrow().pattern());
        rule.text("stopPattern").ifPresent(built::stopPattern);
        startCutOff.ifPresent(built::expectedStartCutOffInSeconds);
        recurring.ifPresent(built::expectedRecurringFrequencyInSeconds);
        if (threshold.isPresent()) {
            built.metric(operator.orElseThrow(), threshold.getAsDouble());
        }
        dataPoints.ifPresent(points -> built.metricEvaluationDataPoints((int) points));
        return Optional.of(built.build());
    }

    private static Optional<Pattern> regex(ConfigFields rule, String field) {
        Optional<String> text = rule.text(field);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Pattern.compile(text.get(), Pattern.DOTALL));
        } catch (PatternSyntaxException e) {
            String at = e.getIndex() >= 0 ? " at position " + e.getIndex() : "";
            rule.error(
                    field, "bad regular expression" + at + ": " + e.getDescription() + " in " + Quote.text(text.get()));
            return Optional.empty();
        }
    }

    private static Optional<MetricOperator> operator(ConfigFields rule) {
        Optional<String> text = rule.text("operator");
        if (text.isEmpty()) {
            return Optional.empty();
        }
        Optional<MetricOperator> operator = MetricOperator.fromConfigName(text.get());
        if (operator.isEmpty()) {
            rule.error(
                    "operator",
                    "unknown operator " + Quote.text(text.get()) + "; use one of " + MetricOperator.allConfigNames());
        }
        return operator;
    }
}
