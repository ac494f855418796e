package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobStateDirectory;

class HistoryCommandTest {

    @TempDir
    Path dir;

    /** Where the history command looks for this process's user with TMPDIR={@link #dir}. */
    private Path ownStateDir() throws IOException {
        Path own = dir.resolve("autoresume-" + JobStateDirectory.uid());
        return Files.exists(own)
                ? own
                : Files.createDirectory(
                        own, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    @Test
    void aStateDirectoryOthersCouldHavePlantedIsNotRead() throws IOException {
        writeTimeline(ownStateDir());
        Files.setPosixFilePermissions(ownStateDir(), PosixFilePermissions.fromString("rwxrwxrwx"));
        CliHarness cli = new CliHarness(Map.of("USER", "alice", "TMPDIR", dir.toString()));
        assertEquals(ExitCode.FAILED.code(), cli.run("history", "--json", "42"));
        assertEquals("", cli.out);
        assertTrue(cli.err.contains(ownStateDir().toString()), cli.err);
    }

    private void writeTimeline(Path where) {
        EventHistory history = new EventHistory(where, "alice", "42", message -> {});
        history.record(EventHistory.Kind.LAUNCH, 1, null, OptionalLong.empty());
        history.record(
                EventHistory.Kind.DETECTION, 1, "0", OptionalLong.of(3159), "source", "log-rule", "rule", "Beat");
        history.record(EventHistory.Kind.LAUNCH, 2, null, OptionalLong.of(117));
    }

    @Test
    void showsTheTimelineWithLatencies() throws IOException {
        writeTimeline(ownStateDir());
        CliHarness cli = new CliHarness(Map.of("USER", "alice", "TMPDIR", dir.toString()));
        assertEquals(0, cli.run("history", "42"), cli.err);
        String[] lines = cli.out.split("\n");
        assertEquals(4, lines.length, cli.out);
        assertTrue(lines[0].startsWith("TIME"), cli.out);
        assertTrue(
                lines[2].contains("detection")
                        && lines[2].contains("3159 ms")
                        && lines[2].contains("source=log-rule rule=Beat"),
                cli.out);
        assertTrue(lines[3].contains("launch") && lines[3].contains("117 ms"), cli.out);
    }

    @Test
    void jsonHasStableFieldNames() throws IOException {
        writeTimeline(dir);
        CliHarness cli = new CliHarness(Map.of());
        assertEquals(0, cli.run("history", "--json", "--user", "alice", "--state-dir", dir.toString(), "42"), cli.err);
        JsonNode doc = new ObjectMapper().readTree(cli.out);
        assertEquals(3, doc.size());
        assertEquals("detection", doc.get(1).get("event").asText());
        assertEquals(3159, doc.get(1).get("latencyMs").asLong());
        assertEquals("Beat", doc.get(1).get("details").get("rule").asText());
        assertTrue(doc.get(0).get("latencyMs").isNull());
    }

    @Test
    void aMissingHistorySaysWhereItLookedAndExits3() throws IOException {
        CliHarness cli = new CliHarness(Map.of("USER", "alice", "TMPDIR", dir.toString()));
        assertEquals(ExitCode.NOT_FOUND.code(), cli.run("history", "7"));
        assertTrue(
                cli.err.contains(
                        ownStateDir().resolve("autoresume-events-alice-7.jsonl").toString()),
                cli.err);
        assertEquals(ExitCode.USAGE.code(), cli.run("history", "../etc"));
        assertTrue(cli.err.contains("not a valid job id: \"../etc\""), cli.err);
        assertEquals(ExitCode.USAGE.code(), cli.run("history", "7/../../x"));
        assertEquals(ExitCode.NOT_FOUND.code(), cli.run("history", "007"));
        assertTrue(cli.err.contains("autoresume-events-alice-7.jsonl"), "read as Slurm reads it: " + cli.err);
    }
}
