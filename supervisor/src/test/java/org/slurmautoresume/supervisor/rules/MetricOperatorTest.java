package org.slurmautoresume.supervisor.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MetricOperatorTest {

    @ParameterizedTest
    @CsvSource({
        "gt, 3, 2, true", "gt, 2, 2, false", "gteq, 2, 2, true", "gteq, 1.9, 2, false",
        "lt, 1, 2, true", "lt, 2, 2, false", "lteq, 2, 2, true", "lteq, 2.1, 2, false",
        "eq, 2, 2, true", "eq, 2.0001, 2, false"
    })
    void breachesWhenTheComparisonHolds(String name, double value, double threshold, boolean breaches) {
        MetricOperator operator = MetricOperator.fromConfigName(name).orElseThrow();
        assertEquals(breaches, operator.breaches(value, threshold));
    }

    @ParameterizedTest
    @CsvSource({"GT", "' lteq '"})
    void configNamesAreForgivingAboutCaseAndBlanks(String name) {
        assertTrue(MetricOperator.fromConfigName(name).isPresent());
    }

    @ParameterizedTest
    @CsvSource({"'>'", "ge", "lte"})
    void unknownNamesAreRefused(String name) {
        assertEquals(Optional.empty(), MetricOperator.fromConfigName(name));
    }
}
