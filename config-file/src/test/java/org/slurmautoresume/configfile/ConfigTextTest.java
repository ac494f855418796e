package org.slurmautoresume.configfile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.configfile.ConfigText.Format;

class ConfigTextTest {

    @TempDir
    Path dir;

    private final Problems problems = new Problems("f", ConfigPath.root("$"));

    @Test
    void yamlAndJsonGiveTheSameTree() {
        JsonNode yaml =
                ConfigText.parse("a: {b: [1, x]}\n", Format.YAML, problems).orElseThrow();
        JsonNode json = ConfigText.parse("{\"a\": {\"b\": [1, \"x\"]}}", Format.JSON, problems)
                .orElseThrow();
        assertEquals(json, yaml);
        assertEquals(0, problems.all().size());
    }

    @Test
    void nothingInTheFileIsAMissingNode() {
        assertTrue(ConfigText.parse("", Format.YAML, problems).orElseThrow().isMissingNode());
        assertTrue(ConfigText.parse("  \n", Format.JSON, problems).orElseThrow().isMissingNode());
        assertEquals(0, problems.all().size());
    }

    @Test
    void aSyntaxErrorGivesLineAndColumnAtTheRoot() {
        assertEquals(Optional.empty(), ConfigText.parse("{\n  \"a\": 1,\n}", Format.JSON, problems));
        ConfigProblem problem = problems.all().get(0);
        assertEquals("$", problem.path());
        assertTrue(problem.message().startsWith("not valid JSON at line 3, column 1: "), problem.message());
        assertTrue(problem.fix().contains("line 3, column 1"), problem.fix());
        ConfigText.parse("a: [1\n", Format.YAML, problems);
        assertTrue(
                problems.all().get(1).message().startsWith("not valid YAML at line "),
                problems.all().toString());
    }

    @Test
    void aKeyGivenTwiceAndTextAfterTheDocumentAreRefused() {
        assertEquals(Optional.empty(), ConfigText.parse("a: 1\na: 2\n", Format.YAML, problems));
        assertTrue(
                problems.all().get(0).message().contains("Duplicate field 'a'"),
                problems.all().toString());
        assertEquals(Optional.empty(), ConfigText.parse("{\"a\": 1}\n{\"b\": 2}", Format.JSON, problems));
        assertEquals(2, problems.all().size());
    }

    @Test
    void aYamlReasonIsOneLineWithoutEchoesOfTheFile() {
        ConfigText.parse("maxNodes: [1\n", Format.YAML, problems);
        assertEquals(
                "not valid YAML at line 1, column 13: while parsing a flow sequence; expected ',' or ']',"
                        + " but got <stream end>",
                problems.all().get(0).message());
    }

    @Test
    void aHostileSyntaxErrorIsEscapedAndCut() {
        ConfigText.parse("{\"a\": tru" + "e".repeat(10_000) + "\n}", Format.JSON, problems);
        String message = problems.all().get(0).message();
        assertTrue(message.length() < 500, message.length() + ": " + message);
        assertTrue(!message.contains("\n"), message);
    }

    @Test
    void aMissingFileSaysSo() {
        assertEquals(Optional.empty(), ConfigText.read(dir.resolve("absent.json"), Format.JSON, problems));
        assertEquals("f: $: the file does not exist", problems.all().get(0).toString());
    }

    @Test
    void aFileIsReadAsUtf8() throws Exception {
        Path file = Files.writeString(dir.resolve("p.yaml"), "name: \"n\u00e9\"\n");
        assertEquals(
                "n\u00e9",
                ConfigText.read(file, Format.YAML, problems)
                        .orElseThrow()
                        .get("name")
                        .asText());
    }

    @Test
    void theFormatComesFromTheExtensionElseTheFallback() {
        assertEquals(Format.JSON, Format.of("a/b.JSON", Format.YAML));
        assertEquals(Format.YAML, Format.of("b.yml", Format.JSON));
        assertEquals(Format.YAML, Format.of("b.yaml", Format.JSON));
        assertEquals(Format.JSON, Format.of("policy", Format.JSON));
        assertEquals(Format.YAML, Format.of("policy.conf", Format.YAML));
    }
}
