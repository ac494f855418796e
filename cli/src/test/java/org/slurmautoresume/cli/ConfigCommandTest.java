package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigCommandTest {

    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    @Test
    void checkSaysOkForAGoodFile() throws IOException {
        Path good = write("good.yaml", "runPolicy:\n  jobMaxRetryCount: 3\n");
        CliHarness cli = new CliHarness(Map.of());
        assertEquals(0, cli.run("config", "check", good.toString()), cli.err);
        assertEquals("ok\n", cli.out);
    }

    @Test
    void checkPrintsEveryProblemAndExits78() throws IOException {
        Path bad = write("bad.yaml", """
                runPolicy:
                  jobMaxRetryCount: -2
                  logMonitoringConfiguration:
                    - name: a
                      logPattern: "(x"
                      operator: "bigger"
                """);
        CliHarness cli = new CliHarness(Map.of());
        assertEquals(78, cli.run("config", "check", bad.toString()));
        String[] lines = cli.out.split("\n");
        assertEquals(3, lines.length, cli.out);
        assertTrue(lines[0].startsWith(bad + ": runPolicy.jobMaxRetryCount: must not be negative"), cli.out);
        assertTrue(
                cli.out.contains(
                        bad + ": runPolicy.logMonitoringConfiguration[0].operator: unknown operator \"bigger\""),
                cli.out);
        assertTrue(cli.out.contains("logPattern: bad regular expression at position 2"), cli.out);
    }

    @Test
    void checkJsonHasStableFields() throws IOException {
        Path bad = write("bad.json", "{\"runPolicy\": {\"recoverStrategy\": [\"retry\", \"teleport\"]}}");
        CliHarness cli = new CliHarness(Map.of());
        assertEquals(78, cli.run("config", "check", "--json", bad.toString()));
        JsonNode doc = new ObjectMapper().readTree(cli.out);
        assertEquals(false, doc.get("ok").asBoolean());
        assertEquals(
                "runPolicy.recoverStrategy[1]",
                doc.get("errors").get(0).get("path").asText());
        assertEquals(bad.toString(), doc.get("errors").get(0).get("file").asText());
        assertTrue(doc.get("warnings").isArray());
    }

    @Test
    void showMergesTheSiteFileFromTheEnvironmentWithTheJobFile() throws IOException {
        Path site = write("site.yaml", "runPolicy:\n  jobMaxRetryCount: 9\n  restartPolicy: {maxFullJobRestarts: 2}\n");
        Path job = write("job.yaml", "runPolicy:\n  jobMaxRetryCount: 1\n");
        CliHarness cli = new CliHarness(Map.of("AUTORESUME_SITE_CONFIG", site.toString()));
        assertEquals(0, cli.run("config", "show", "--config", job.toString()), cli.err);
        assertTrue(cli.out.contains("jobMaxRetryCount: 1"), cli.out);
        assertTrue(cli.out.contains("maxFullJobRestarts: 2"), cli.out);
        assertTrue(cli.out.contains("- retry"), "defaults are spelled out: " + cli.out);
        assertTrue(cli.err.contains("# read " + site + ", " + job), cli.err);
    }

    @Test
    void showJsonCarriesTheEffectiveConfig() throws IOException {
        Path job = write("job.yaml", "runPolicy:\n  jobMaxRetryCount: 4\n");
        CliHarness cli = new CliHarness(Map.of(
                "AUTORESUME_CONFIG",
                job.toString(),
                "AUTORESUME_SITE_CONFIG",
                dir.resolve("none.yaml").toString()));
        assertEquals(78, cli.run("config", "show", "--json"), "a named site file that is missing is an error");
        cli = new CliHarness(Map.of("AUTORESUME_CONFIG", job.toString()));
        assertEquals(0, cli.run("config", "show", "--json", "--site-config", job.toString()), cli.err);
        JsonNode doc = new ObjectMapper().readTree(cli.out);
        assertEquals(
                4, doc.get("config").get("runPolicy").get("jobMaxRetryCount").asInt());
    }

    @Test
    void checkAndShowCoverTheCheckpointRule() throws IOException {
        Path bad = write("bad-ckpt.yaml", "runPolicy:\n  checkpointMonitoring: {marker: \"a/b\"}\n");
        CliHarness cli = new CliHarness(Map.of());
        assertEquals(78, cli.run("config", "check", bad.toString()));
        assertEquals(
                bad + ": runPolicy.checkpointMonitoring.marker: must be a file name, not a path: \"a/b\"\n", cli.out);
        Path good = write(
                "ckpt.yaml",
                "runPolicy:\n  checkpointMonitoring: {directory: ckpt,"
                        + " expectedRecurringFrequencyInSeconds: 900}\n");
        cli = new CliHarness(Map.of());
        assertEquals(
                0, cli.run("config", "show", "--config", good.toString(), "--site-config", good.toString()), cli.err);
        assertTrue(
                cli.out.contains("  checkpointMonitoring:\n    directory: ckpt\n"
                        + "    expectedRecurringFrequencyInSeconds: 900\n"),
                cli.out);
    }

    @Test
    void checkNeedsAFile() {
        CliHarness cli = new CliHarness(Map.of());
        assertEquals(2, cli.run("config", "check"));
    }
}
