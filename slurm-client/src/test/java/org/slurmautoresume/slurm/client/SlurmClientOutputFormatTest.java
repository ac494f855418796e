package org.slurmautoresume.slurm.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.ModelValues;

/**
 * Text or JSON: which scontrol output the client reads, and that both give the same model.
 * The fake scontrol answers each argv it knows and fails the test on any other.
 */
class SlurmClientOutputFormatTest {

    private static final String V22 = "slurm-22.05";
    private static final String V24 = "slurm-24.05";
    private static final String V2411 = "slurm-24.11";

    /** A fake scontrol that records what it was asked. */
    private static final class FakeScontrol {
        final CommandRunner runner = mock(CommandRunner.class);
        final Map<List<String>, CommandResult> answers = new LinkedHashMap<>();
        final List<List<String>> asked = new ArrayList<>();

        FakeScontrol() {
            when(runner.run(any())).thenAnswer(invocation -> {
                CommandRequest request = invocation.getArgument(0);
                asked.add(request.argv());
                CommandResult result = answers.get(request.argv());
                if (result == null) {
                    throw new AssertionError("unexpected command " + request.argv());
                }
                return new CommandResult(
                        request, result.exitCode(), result.stdout(), result.stderr(), false, Duration.ZERO);
            });
        }

        FakeScontrol answer(String stdout, String... argv) {
            return answer(0, stdout, "", argv);
        }

        FakeScontrol answer(int exit, String stdout, String stderr, String... argv) {
            List<String> full = new ArrayList<>(List.of("scontrol"));
            full.addAll(List.of(argv));
            answers.put(full, new CommandResult(CommandRequest.of(full), exit, stdout, stderr, false, Duration.ZERO));
            return this;
        }

        SlurmClient client(OutputFormat format) {
            return new SlurmClient(runner, "scontrol", Duration.ofSeconds(5), format, ZoneOffset.UTC);
        }
    }

    private static FakeScontrol slurm2205() {
        return new FakeScontrol().answer("slurm-wlm 22.05.8\n", "--version");
    }

    private static FakeScontrol slurm2405() {
        return new FakeScontrol().answer("slurm 24.05.4\n", "--version");
    }

    @Test
    void autoReadsTextFrom2205AndJsonFrom2405AndBothGiveTheSameModel() {
        FakeScontrol old = slurm2205()
                .answer(Fixtures.read(V22, "show-job-running-shrunk-nokill.txt"), "-o", "show", "job", "6")
                .answer(Fixtures.read(V22, "show-node-idle-fail.txt"), "-o", "show", "node", "node2")
                .answer(Fixtures.read(V22, "show-step-job-multi.txt"), "-o", "show", "step", "9");
        FakeScontrol current = slurm2405()
                .answer(Fixtures.read(V24, "show-job-running-shrunk-nokill.json"), "--json", "show", "job", "6")
                .answer(Fixtures.read(V24, "show-node-idle-fail.json"), "--json", "show", "node", "node2")
                .answer(Fixtures.read(V24, "show-node-idle-fail.txt"), "-o", "show", "node", "node2")
                .answer(Fixtures.read(V24, "show-step-job-multi.json"), "--json", "show", "step", "9");
        SlurmClient text = old.client(OutputFormat.AUTO);
        SlurmClient json = current.client(OutputFormat.AUTO);

        assertEquals(ModelValues.of(text.requireJob("6")), ModelValues.of(json.requireJob("6")));
        assertEquals(
                ModelValues.of(text.node("node2").orElseThrow()),
                ModelValues.of(json.node("node2").orElseThrow()));
        assertEquals(
                text.steps("9").stream().map(ModelValues::of).toList(),
                json.steps("9").stream().map(ModelValues::of).toList());

        // The version is asked once per client, before the first query.
        assertEquals(
                List.of(
                        List.of("scontrol", "--version"),
                        List.of("scontrol", "-o", "show", "job", "6"),
                        List.of("scontrol", "-o", "show", "node", "node2"),
                        List.of("scontrol", "-o", "show", "step", "9")),
                old.asked);
        assertEquals(
                List.of(
                        List.of("scontrol", "--version"),
                        List.of("scontrol", "--json", "show", "job", "6"),
                        List.of("scontrol", "--json", "show", "node", "node2"),
                        // 24.05's JSON has no word for BLOCKED: nodes are read from the text (below).
                        List.of("scontrol", "-o", "show", "node", "node2"),
                        List.of("scontrol", "--json", "show", "step", "9")),
                current.asked);
        assertEquals(OutputFormat.TEXT, text.outputFormat());
        assertEquals(OutputFormat.JSON, json.outputFormat());
    }

    /**
     * 24.05 to 25.05 have BLOCKED nodes (EXTERNAL from 25.05) and a data_parser with no word for
     * them: such a node reads IDLE in the JSON, a spare to take. The text names the flag; after
     * the first such answer the client asks only the text for nodes.
     */
    @Test
    void nodesAreReadFromTheTextWhereTheJsonCannotNameBlocked() {
        FakeScontrol scontrol = slurm2405()
                .answer(Fixtures.read(V24, "show-node-idle.json"), "--json", "show", "node", "node4")
                .answer(
                        Fixtures.read(V24, "show-node-idle-blocked-restricted-cores.txt"),
                        "-o",
                        "show",
                        "node",
                        "node4")
                .answer(Fixtures.read(V24, "show-node-idle-blocked-restricted-cores.txt"), "-o", "show", "node")
                .answer(Fixtures.read(V24, "show-job-running.json"), "--json", "show", "job", "6");
        SlurmClient client = scontrol.client(OutputFormat.AUTO);

        assertFalse(client.node("node4").orElseThrow().state().isSchedulable());
        assertTrue(
                client.nodes().get(0).state().display().contains("BLOCKED"),
                client.nodes().toString());
        client.job("6");

        assertEquals(
                List.of(
                        List.of("scontrol", "--version"),
                        List.of("scontrol", "--json", "show", "node", "node4"),
                        List.of("scontrol", "-o", "show", "node", "node4"),
                        List.of("scontrol", "-o", "show", "node"),
                        List.of("scontrol", "-o", "show", "node"),
                        // Jobs stay in JSON: only nodes have flags it cannot name.
                        List.of("scontrol", "--json", "show", "job", "6")),
                scontrol.asked);
    }

    /** 25.11's data_parser v0.0.44 names both flags: its JSON is read as it is. */
    @Test
    void jsonThatNamesBlockedIsReadAsItIs() {
        FakeScontrol scontrol = new FakeScontrol()
                .answer("slurm 25.11.0\n", "--version")
                .answer(Fixtures.read("slurm-25.11", "show-node-idle-blocked.json"), "--json", "show", "node", "node2");
        SlurmClient client = scontrol.client(OutputFormat.AUTO);

        assertTrue(client.node("node2").orElseThrow().state().display().contains("BLOCKED"));
        assertEquals(
                List.of(List.of("scontrol", "--version"), List.of("scontrol", "--json", "show", "node", "node2")),
                scontrol.asked);
    }

    /** Looking up the zone loads the time zone rules (about 40 ms): a supervised srun on text never pays it. */
    @Test
    void theTimeZoneIsAskedForOnlyWhenJsonIsRead() {
        AtomicInteger textAsked = new AtomicInteger();
        AtomicInteger jsonAsked = new AtomicInteger();
        FakeScontrol old = slurm2205()
                .answer(Fixtures.read(V22, "show-job-running-shrunk-nokill.txt"), "-o", "show", "job", "6")
                .answer(Fixtures.read(V22, "show-step-job-multi.txt"), "-o", "show", "step", "9");
        FakeScontrol current = slurm2405()
                .answer(Fixtures.read(V24, "show-job-running-shrunk-nokill.json"), "--json", "show", "job", "6")
                .answer(Fixtures.read(V24, "show-step-job-multi.json"), "--json", "show", "step", "9");
        SlurmClient text = new SlurmClient(old.runner, "scontrol", Duration.ofSeconds(5), OutputFormat.AUTO, () -> {
            textAsked.incrementAndGet();
            return ZoneOffset.UTC;
        });
        SlurmClient json = new SlurmClient(current.runner, "scontrol", Duration.ofSeconds(5), OutputFormat.AUTO, () -> {
            jsonAsked.incrementAndGet();
            return ZoneOffset.UTC;
        });
        assertEquals(0, textAsked.get() + jsonAsked.get(), "asked when the clients were made");

        text.requireJob("6");
        text.steps("9");
        json.requireJob("6");
        json.steps("9");

        assertEquals(0, textAsked.get());
        assertEquals(1, jsonAsked.get());
    }

    @Test
    void jsonThatCannotBeReadIsBadOutputQuotingIt() {
        FakeScontrol scontrol =
                slurm2405().answer("{\"jobs\": [{\"job_id\": 6, \"job_state\": [", "--json", "show", "job", "6");
        SlurmException e = assertThrows(
                SlurmException.class, () -> scontrol.client(OutputFormat.AUTO).job("6"));
        assertEquals(SlurmException.Kind.BAD_OUTPUT, e.kind());
        assertTrue(e.getMessage().contains("{\"jobs\": [{\"job_id\": 6, \"job_state\": ["), e.getMessage());
        FakeScontrol noState =
                slurm2405().answer("{\"jobs\": [{\"job_id\": 6, \"job_state\": []}]}", "--json", "show", "job", "6");
        SlurmException missing = assertThrows(
                SlurmException.class, () -> noState.client(OutputFormat.AUTO).job("6"));
        assertEquals(SlurmException.Kind.BAD_OUTPUT, missing.kind());
        assertTrue(missing.getMessage().contains("job_state"), missing.getMessage());
    }

    /** 23.11+ answer an unknown job with an empty list and exit 0; the text says "Invalid job id". */
    @Test
    void anEmptyJsonAnswerIsAskedAgainAsText() {
        FakeScontrol scontrol = slurm2405()
                .answer(
                        "{\"jobs\": [], \"errors\": [], \"warnings\": [{\"description\": \"Zero jobs to dump\"}]}",
                        "--json",
                        "show",
                        "job",
                        "987654")
                .answer(1, "", Fixtures.read(V22, "show-job-invalid-id.stderr.txt"), "-o", "show", "job", "987654");
        SlurmClient client = scontrol.client(OutputFormat.AUTO);
        assertTrue(client.job("987654").isEmpty());
        SlurmException e = assertThrows(SlurmException.class, () -> client.requireJob("987654"));
        assertEquals(SlurmException.Kind.NOT_FOUND, e.kind());
        assertEquals(List.of("scontrol", "-o", "show", "job", "987654"), scontrol.asked.get(2));
    }

    /** Seen on 24.11: an salloc allocation without steps; "not found" there means "none", not a failure. */
    @Test
    void aJobWithoutStepsHasNone() {
        FakeScontrol scontrol = slurm2405()
                .answer("{\"steps\": [], \"errors\": [], \"warnings\": []}", "--json", "show", "step", "27")
                .answer(
                        1,
                        Fixtures.read(V2411, "show-step-job-without-steps.error.txt"),
                        "",
                        "-o",
                        "show",
                        "step",
                        "27")
                .answer(1, "Job step 28. not found\n", "", "-o", "show", "step", "29");
        SlurmClient client = scontrol.client(OutputFormat.AUTO);
        assertEquals(List.of(), client.steps("27"));
        // Another job's id in the words is not this job's answer.
        scontrol.answer("{\"steps\": []}", "--json", "show", "step", "29");
        assertThrows(SlurmException.class, () -> client.steps("29"));
    }

    @Test
    void jsonThatLeavesOutAnAskedNodeIsAskedAgainAsTextWhichSaysNotFound() {
        FakeScontrol scontrol = slurm2405()
                .answer(Fixtures.read(V24, "show-node-idle.json"), "--json", "show", "node", "node[2,9]")
                .answer(
                        1,
                        Fixtures.read(V22, "show-node-idle.txt"),
                        "Node node9 not found\n",
                        "-o",
                        "show",
                        "node",
                        "node[2,9]");
        SlurmException e = assertThrows(
                SlurmException.class, () -> scontrol.client(OutputFormat.AUTO).nodes("node[2,9]"));
        assertEquals(SlurmException.Kind.NOT_FOUND, e.kind());
    }

    @Test
    void anUnreachableControllerFailsAtOnceInJson() {
        FakeScontrol scontrol = slurm2405()
                .answer(
                        1,
                        "",
                        "slurm_load_node error: Unable to contact slurm controller (connect failure)\n",
                        "--json",
                        "show",
                        "node");
        SlurmException e = assertThrows(
                SlurmException.class, () -> scontrol.client(OutputFormat.AUTO).nodes());
        assertEquals(SlurmException.Kind.UNAVAILABLE, e.kind());
        assertTrue(e.getMessage().contains("scontrol --json show node"), e.getMessage());
        assertEquals(2, scontrol.asked.size());
    }

    @Test
    void explicitFormatsNeverAskTheVersion() {
        FakeScontrol text = new FakeScontrol().answer(Fixtures.read(V22, "show-node-all.txt"), "-o", "show", "node");
        assertEquals(4, text.client(OutputFormat.TEXT).nodes().size());
        assertEquals(List.of(List.of("scontrol", "-o", "show", "node")), text.asked);

        FakeScontrol json = new FakeScontrol()
                .answer(Fixtures.read("slurm-23.11", "show-node-idle-drain.json"), "--json", "show", "node");
        assertEquals(
                "bad gpu count=7 of 8",
                json.client(OutputFormat.JSON)
                        .nodes()
                        .get(0)
                        .reason()
                        .orElseThrow()
                        .text());
        assertEquals(List.of(List.of("scontrol", "--json", "show", "node")), json.asked);
    }

    /** JSON asked of a 22.05 scontrol, which has no --json, is answered from its text. */
    @Test
    void jsonAskedOfAnScontrolWithoutItFallsBackToText() {
        FakeScontrol scontrol = new FakeScontrol()
                .answer(
                        1,
                        "",
                        "scontrol: unrecognized option '--json'\nTry \"scontrol --help\" for more information\n",
                        "--json",
                        "show",
                        "node",
                        "node2")
                .answer(Fixtures.read(V22, "show-node-idle.txt"), "-o", "show", "node", "node2");
        assertEquals(
                "IDLE",
                scontrol.client(OutputFormat.JSON)
                        .node("node2")
                        .orElseThrow()
                        .state()
                        .display());
    }

    /** A version that cannot be read means text this time; the next query asks again. */
    @Test
    void anUnreadableVersionMeansTextAndIsAskedAgain() {
        FakeScontrol scontrol = new FakeScontrol()
                .answer("something odd\n", "--version")
                .answer(Fixtures.read(V22, "show-node-idle.txt"), "-o", "show", "node", "node2");
        SlurmClient client = scontrol.client(OutputFormat.AUTO);
        client.node("node2");
        client.node("node2");
        assertEquals(
                List.of(
                        List.of("scontrol", "--version"), List.of("scontrol", "-o", "show", "node", "node2"),
                        List.of("scontrol", "--version"), List.of("scontrol", "-o", "show", "node", "node2")),
                scontrol.asked);
    }

    /**
     * A long-lived client (the agent's GPU checks, every minute) on a node where the version cannot
     * be read is told so once, not at every query (seen on a GPU node without Slurm's client: a
     * warning a second with checks every second).
     */
    @Test
    void anUnreadableVersionIsWarnedOncePerClient() {
        FakeScontrol scontrol = new FakeScontrol()
                .answer("something odd\n", "--version")
                .answer(Fixtures.read(V22, "show-node-idle.txt"), "-o", "show", "node", "node2");
        ch.qos.logback.classic.Logger logger =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(SlurmClient.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> events =
                new ch.qos.logback.core.read.ListAppender<>();
        events.start();
        logger.addAppender(events);
        try {
            SlurmClient client = scontrol.client(OutputFormat.AUTO);
            for (int i = 0; i < 3; i++) {
                client.node("node2");
            }
        } finally {
            logger.detachAppender(events);
        }
        assertEquals(
                1,
                events.list.stream()
                        .filter(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN)
                        .count(),
                events.list.toString());
    }
}
