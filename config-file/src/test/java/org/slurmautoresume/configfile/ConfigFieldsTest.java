package org.slurmautoresume.configfile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.configfile.ConfigText.Format;

/** One test per kind of problem; each checks the path, the message and that the read came back empty. */
class ConfigFieldsTest {

    private final Problems problems = new Problems("job.yaml", ConfigPath.root());

    private ConfigFields fields(String yaml) {
        JsonNode tree = ConfigText.parse(yaml, Format.YAML, problems).orElseThrow();
        return ConfigFields.of(tree, problems.root(), problems).orElseThrow();
    }

    private ConfigProblem only() {
        assertEquals(1, problems.all().size(), problems.all().toString());
        return problems.all().get(0);
    }

    @Test
    void goodValuesAreReadWithoutAWord() {
        ConfigFields in = fields("""
                name: a
                count: 3
                ratio: 0.5
                on: true
                mode: Report
                nested: {x: 1}
                items: [p, q]
                """);
        assertEquals(Optional.of("a"), in.text("name"));
        assertEquals(OptionalLong.of(3), in.wholeNumber("count", 0, 10));
        assertEquals(OptionalDouble.of(0.5), in.number("ratio"));
        assertEquals(Optional.of(true), in.bool("on"));
        assertEquals(Optional.of("report"), in.choice("mode", List.of("replace", "report")));
        assertEquals(OptionalLong.of(1), in.object("nested").orElseThrow().wholeNumber("x", 0, Field.NO_MAX));
        assertEquals(
                List.of("p", "q"),
                in.list("items").stream().map(f -> f.text().orElseThrow()).toList());
        in.rejectUnknown();
        assertEquals(List.of(), problems.all());
    }

    @Test
    void absentAndNullAreEmptyUnlessRequired() {
        ConfigFields in = fields("cleared: null\n");
        assertEquals(Optional.empty(), in.text("cleared"));
        assertEquals(OptionalLong.empty(), in.wholeNumber("absent", 0, 1));
        assertEquals(List.of(), in.list("none"));
        assertEquals(Optional.empty(), in.object("none"));
        assertEquals(List.of(), problems.all());
        assertEquals(
                Optional.empty(), in.field("cleared").required("set cleared: x").text());
        ConfigProblem problem = only();
        assertEquals("cleared", problem.path());
        assertEquals("required field is missing", problem.message());
        assertEquals("set cleared: x", problem.fix());
        assertTrue(problem.isError());
    }

    @Test
    void blankOptionalTextCanCountAsAbsent() {
        assertEquals(Optional.empty(), fields("id: ' '\n").field("id").nonBlankText());
        assertEquals(List.of(), problems.all());
    }

    @Test
    void aRequiredTextThatIsBlankIsEmpty() {
        assertEquals(
                Optional.empty(),
                fields("name: '  '\n").field("name").required("name it").text());
        assertEquals("job.yaml: name: is empty", only().toString());
        assertEquals("name it", only().fix());
    }

    @Test
    void aWrongTypeNamesWhatWasFound() {
        ConfigFields in = fields("a: 6h\nb: 1.5\nc: [1]\nd: yes please\ne: 'two'\nf: {x: 1}\n");
        in.wholeNumber("a", 0, 9);
        in.wholeNumber("b", 0, 9);
        in.text("c");
        in.bool("d");
        in.number("e");
        in.list("f");
        assertEquals(
                List.of(
                        "job.yaml: a: expected a whole number, found text \"6h\"",
                        "job.yaml: b: expected a whole number, found number 1.5",
                        "job.yaml: c: expected text, found a list",
                        "job.yaml: d: must be true or false, found text \"yes please\"",
                        "job.yaml: e: expected a number, found text \"two\"",
                        "job.yaml: f: expected a list, found a mapping"),
                problems.all().stream().map(ConfigProblem::toString).toList());
        assertEquals(
                "write a whole number without quotes, e.g. 1",
                problems.all().get(0).fix());
        assertEquals("write the value in double quotes", problems.all().get(2).fix());
    }

    @Test
    void rangesSayTheBoundAndTheValue() {
        ConfigFields in = fields("neg: -1\nzero: 0\nbig: 150\nhuge: 3000000000\n");
        assertEquals(OptionalLong.empty(), in.wholeNumber("neg", 0, 100));
        assertEquals(OptionalLong.empty(), in.wholeNumber("zero", 1, 100));
        assertEquals(
                OptionalLong.empty(),
                in.field("big").rangeFix("use a percentage").wholeNumber(0, 100));
        assertEquals(Optional.empty(), in.field("huge").integer(0, Integer.MAX_VALUE));
        List<ConfigProblem> all = problems.all();
        assertEquals("must not be negative, found -1", all.get(0).message());
        assertEquals("use 0 to 100", all.get(0).fix());
        assertEquals("must be at least 1, found 0", all.get(1).message());
        assertEquals("must be at most 100, found 150", all.get(2).message());
        assertEquals("use a percentage", all.get(2).fix());
        assertEquals("must be at most 2147483647, found 3000000000", all.get(3).message());
    }

    @Test
    void aChoiceListsWhatIsAllowed() {
        assertEquals(Optional.empty(), fields("mode: kill\n").choice("mode", List.of("replace", "report")));
        assertEquals("must be one of replace, report, found text \"kill\"", only().message());
    }

    @Test
    void nestedObjectsAndListElementsCarryTheirPath() {
        ConfigFields in = fields("""
                runPolicy:
                  logMonitoringConfiguration:
                    - {name: a}
                    - 7
                    - {name: 5}
                """);
        ConfigFields runPolicy = in.object("runPolicy").orElseThrow();
        List<Field> rules = runPolicy.list("logMonitoringConfiguration");
        assertEquals(3, rules.size());
        assertTrue(rules.get(0).object().isPresent());
        assertEquals(Optional.empty(), rules.get(1).object("a rule"));
        rules.get(2).object().orElseThrow().text("name");
        assertEquals(
                List.of(
                        "job.yaml: runPolicy.logMonitoringConfiguration[1]: expected a rule, found number 7",
                        "job.yaml: runPolicy.logMonitoringConfiguration[2].name: expected text, found number 5"),
                problems.all().stream().map(ConfigProblem::toString).toList());
    }

    @Test
    void aRequiredListMustHaveElements() {
        assertEquals(
                List.of(),
                fields("groups: []\n")
                        .field("groups")
                        .required("list one group")
                        .list());
        assertEquals("groups", only().path());
        assertEquals("is empty", only().message());
        assertEquals("list one group", only().fix());
    }

    @Test
    void anUnknownFieldIsAnErrorOrAWarningAndSuggestsTheKnownName() {
        ConfigFields strict = fields("maxNodes: 1\nmaxNods: 3\nzzz: 1\n");
        strict.wholeNumber("maxNodes", 0, 9);
        strict.has("maxPartitionPercent");
        strict.rejectUnknown();
        List<ConfigProblem> all = problems.all();
        assertEquals(2, all.size(), all.toString());
        assertEquals("maxNods", all.get(0).path());
        assertEquals(
                "unknown field; known here: maxNodes, maxPartitionPercent",
                all.get(0).message());
        assertEquals(
                "did you mean \"maxNodes\"? Field names are case-sensitive",
                all.get(0).fix());
        assertEquals(
                "remove it, or check its spelling against the known fields: maxNodes, maxPartitionPercent",
                all.get(1).fix());
        assertTrue(all.get(1).isError());

        Problems lenient = new Problems("r.json", ConfigPath.root("$"));
        ConfigFields request = ConfigFields.of(
                        ConfigText.parse("{\"SourceS3URI\": 1, \"Tags\": []}", Format.JSON, lenient)
                                .orElseThrow(),
                        lenient.root(),
                        lenient)
                .orElseThrow();
        request.field("SourceS3Uri");
        request.accept(List.of("Tags"));
        request.warnUnknown();
        ConfigProblem warning = lenient.all().get(0);
        assertEquals(1, lenient.all().size(), lenient.all().toString());
        assertFalse(warning.isError());
        assertEquals("$.SourceS3URI", warning.path());
        assertEquals("unknown field, ignored", warning.message());
        assertEquals("r.json: $.SourceS3URI: warning: " + warning.message(), warning.toString());
        assertTrue(warning.fix().contains("did you mean \"SourceS3Uri\""), warning.fix());
    }

    @Test
    void theDocumentItselfMustBeAMapping() {
        assertEquals(Optional.empty(), ConfigFields.of(null, problems.root(), problems));
        assertEquals(Optional.empty(), ConfigFields.ofOptional(null, problems.root(), problems));
        assertEquals("job.yaml: expected a mapping of fields, found nothing", only().toString());
    }

    @Test
    void hostileValuesCannotForgeLinesOrFloodTheReport() {
        String flood = "A".repeat(10_240);
        // JSON: YAML refuses keys over 1024 characters before this reader could see them.
        JsonNode tree = ConfigText.parse(
                        "{\"n\": \"1\\njob.yaml: runPolicy: all good\", \"big\": \"" + flood + "\", \"" + flood
                                + "\": 1}",
                        Format.JSON,
                        problems)
                .orElseThrow();
        ConfigFields in = ConfigFields.of(tree, problems.root(), problems).orElseThrow();
        in.wholeNumber("n", 0, 9);
        in.wholeNumber("big", 0, 9);
        in.rejectUnknown();
        List<ConfigProblem> all = problems.all();
        assertEquals(3, all.size(), all.toString());
        for (ConfigProblem problem : all) {
            String line = problem.toString();
            assertFalse(line.contains("\n"), line);
            assertTrue(line.length() < 300, line.length() + ": " + line);
        }
        assertEquals(
                "expected a whole number, found text \"1\\njob.yaml: runPolicy: all good\"",
                all.get(0).message());
        assertTrue(
                all.get(1).message().endsWith("...\" (10240 characters)"),
                all.get(1).message());
        assertTrue(all.get(2).path().endsWith("(10240 characters)]"), all.get(2).path());
    }

    @Test
    void errorsSinceAMarkAreCountedForOneSection() {
        ConfigFields in = fields("a: x\n");
        int mark = problems.mark();
        in.warning("a", "doubtful");
        assertFalse(problems.hasErrorsSince(mark));
        in.wholeNumber("a", 0, 1);
        assertTrue(problems.hasErrorsSince(mark));
        Problems merged = problems.forFile("site.yaml + job.yaml");
        merged.error(ConfigPath.root().field("b"), "bad");
        assertEquals("site.yaml + job.yaml: b: bad", problems.all().get(2).toString());
    }
}
