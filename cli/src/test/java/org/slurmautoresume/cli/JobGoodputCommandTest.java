package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.supervisor.step.record.EventHistory;

/** {@code autoresume job} sums up the job's timeline as its goodput, when the timeline is there. */
class JobGoodputCommandTest {

    /**
     * artest's job 3: a heartbeat finds a node fault (last beat 10:04:56, found 10:05:00), the newest checkpoint is
     * from 10:03:00, the step runs again at 10:05:11, beats at 10:05:25 and ends at 10:06:25.
     */
    private static final String TIMELINE = """
            {"at":"2026-11-28T10:00:00Z","event":"launch","jobId":"3","attempt":1,"stepId":null,"progressBy":"heartbeat,checkpoint"}
            {"at":"2026-11-28T10:00:12Z","event":"progress","jobId":"3","attempt":1,"stepId":"3.0","source":"heartbeat","signAt":"2026-11-28T10:00:12Z"}
            {"at":"2026-11-28T10:05:00Z","event":"detection","jobId":"3","attempt":1,"stepId":"3.0","latencyMs":4000,"source":"log-rule","rule":"Heartbeat","state":"HANGING"}
            {"at":"2026-11-28T10:05:03Z","event":"attempt-ended","jobId":"3","attempt":1,"stepId":"3.0","status":"143","outcome":"NODE_FAULT","reason":"node2","checkpointAt":"2026-11-28T10:03:00Z"}
            {"at":"2026-11-28T10:05:11Z","event":"launch","jobId":"3","attempt":2,"stepId":null,"latencyMs":7800,"progressBy":"heartbeat,checkpoint"}
            {"at":"2026-11-28T10:05:25Z","event":"progress","jobId":"3","attempt":2,"stepId":"3.1","source":"heartbeat","signAt":"2026-11-28T10:05:25Z"}
            {"at":"2026-11-28T10:06:25Z","event":"attempt-ended","jobId":"3","attempt":2,"stepId":"3.1","status":"0","outcome":"SUCCEEDED","reason":"exit 0","checkpointAt":"2026-11-28T10:06:00Z"}
            {"at":"2026-11-28T10:06:25Z","event":"succeeded","jobId":"3","attempt":2,"stepId":"3.1"}
            """;

    @TempDir
    Path dir;

    private CliHarness completedJob3() {
        return new CliHarness(Map.of("TMPDIR", dir.toString()))
                .answer(
                        List.of("-o", "show", "job", "3"),
                        0,
                        Fixtures.read("slurm-22.05", "show-job-completed.txt"),
                        "");
    }

    @Test
    void theJsonCarriesTheGoodputAndWhereTheLostTimeWent() throws Exception {
        Files.writeString(EventHistory.fileFor(dir, "artest", "3"), TIMELINE);
        CliHarness cli = completedJob3();
        assertEquals(0, cli.run("job", "3", "--json", "--state-dir", dir.toString()), cli.err);
        JsonNode goodput = new ObjectMapper().readTree(cli.out).get("goodput");
        assertEquals(240.0 / 385.0, goodput.get("ratio").asDouble(), 1e-9, cli.out);
        assertEquals(385.0, goodput.get("elapsedSeconds").asDouble(), cli.out);
        assertEquals(240.0, goodput.get("productiveSeconds").asDouble(), cli.out);
        JsonNode lost = goodput.get("lostSeconds");
        assertEquals(4.0, lost.get("detection").asDouble(), cli.out);
        assertEquals(11.0, lost.get("recovery").asDouble(), cli.out);
        assertEquals(14.0, lost.get("restart").asDouble(), cli.out);
        assertEquals(116.0, lost.get("redone").asDouble(), cli.out);
        assertEquals(0.0, goodput.get("unattributedSeconds").asDouble(), cli.out);
        assertEquals(1, goodput.get("faults").asInt(), cli.out);
    }

    @Test
    void theTableShowsTheRatioAndTheBreakdown() throws Exception {
        Files.writeString(EventHistory.fileFor(dir, "artest", "3"), TIMELINE);
        CliHarness cli = completedJob3();
        assertEquals(0, cli.run("job", "3", "--state-dir", dir.toString()), cli.err);
        assertTrue(cli.out.lines().anyMatch(l -> l.matches("goodput +62\\.3%")), cli.out);
        assertTrue(cli.out.lines().anyMatch(l -> l.matches("productive +240\\.0 s of 385\\.0 s")), cli.out);
        assertTrue(
                cli.out.contains("145.0 s (detection 4.0 s, recovery 11.0 s, restart 14.0 s, redone 116.0 s)"),
                cli.out);
    }

    @Test
    void withoutACheckpointRuleTheGoodputIsARangeNotAGuess() throws Exception {
        String noCheckpoints = TIMELINE.replaceAll(",\"checkpointAt\":\"[^\"]*\"", "");
        Files.writeString(EventHistory.fileFor(dir, "artest", "3"), noCheckpoints);
        CliHarness cli = completedJob3();
        assertEquals(0, cli.run("job", "3", "--state-dir", dir.toString()), cli.err);
        // The first attempt's 296 s of work may all be redone: only the 60 s after the restart are surely kept.
        assertTrue(cli.out.contains("goodput        15.6% to 92.5% (296.0 s not attributed"), cli.out);
        assertEquals(0, cli.run("job", "3", "--json", "--state-dir", dir.toString()), cli.err);
        JsonNode goodput = new ObjectMapper().readTree(cli.out).get("goodput");
        assertEquals(296.0, goodput.get("unattributedSeconds").asDouble(), cli.out);
        assertEquals(0.0, goodput.get("lostSeconds").get("redone").asDouble(), cli.out);
    }

    @Test
    void withoutATimelineTheGoodputIsUnknownAndTheJobStillShown() throws Exception {
        CliHarness cli = completedJob3();
        assertEquals(0, cli.run("job", "3", "--json", "--state-dir", dir.toString()), cli.err);
        JsonNode job = new ObjectMapper().readTree(cli.out);
        assertEquals("COMPLETED", job.get("state").asText());
        assertTrue(job.get("goodput").isNull(), cli.out);
        assertEquals(0, cli.run("job", "3", "--state-dir", dir.toString()), cli.err);
        assertTrue(cli.out.contains("goodput        - (no auto-resume timeline here: "), cli.out);
    }
}
