package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.nodeops.health.FakeTools;
import org.slurmautoresume.nodeops.health.FakeTools.Answer;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.exec.CommonsExecCommandRunner;
import org.slurmautoresume.slurm.plugin.HostPlugins;
import org.slurmautoresume.slurm.plugin.PluginRelease;
import picocli.CommandLine;

/** The whole `autoresume health` path: real runner, fake tools as the only PATH. */
class HealthCommandTest {

    @TempDir
    Path bin;

    @TempDir
    Path emptySysfs;

    FakeTools tools;
    Path slurmConf;
    String out;
    String err;

    @BeforeEach
    void setUp() {
        tools = new FakeTools(bin);
        slurmConf = bin.resolve("no-slurm.conf");
    }

    private int run(String... given) {
        return runWith(Map.of(), given);
    }

    private int runWith(Map<String, String> moreEnvironment, String... given) {
        // The fake dmesg is the kernel log here: the machine's own /dev/kmsg is not part of the test.
        String[] args = given;
        if (given.length > 0 && given[0].equals("health")) {
            args = java.util.Arrays.copyOf(given, given.length + 2);
            args[given.length] = "--kernel-log";
            args[given.length + 1] = "-";
        }
        // This machine's own slurm.conf and plugstack are not part of the test either.
        Map<String, String> environment = new java.util.HashMap<>(
                Map.of("PATH", tools.path(), "SLURMD_NODENAME", "node7", "SLURM_CONF", slurmConf.toString()));
        environment.putAll(moreEnvironment);
        CliHarness cli = new CliHarness(environment, CommonsExecCommandRunner::new);
        int code = cli.run(args);
        out = cli.out;
        err = cli.err;
        return code;
    }

    private void gpus(String query) {
        tools.tool(
                "nvidia-smi",
                Answer.out("--query-remapped-rows", "nvidia-smi/remapped-rows-healthy.csv", 0),
                Answer.out("--query-gpu", query, 0));
        tools.tool("dmesg", Answer.out("", "kernel-log/dmesg-clean.txt", 0));
    }

    private void scontrol(int updateExit) {
        String node = "NodeName=node7 Arch=x86_64 CoresPerSocket=4 CPUAlloc=0 CPUTot=4 Gres=gpu:h100:8(S:0-1)"
                + " NodeAddr=10.0.0.7 NodeHostName=node7 Port=6818 Version=22.05.8 State=IDLE Partitions=gpu";
        tools.script(
                "scontrol",
                "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + bin.resolve("scontrol.calls") + "'\n"
                        + "case \"$1\" in\n"
                        + "  --version) echo 'slurm-wlm 22.05.8';;\n"
                        + "  -o) echo '" + node + "';;\n"
                        + "  update) [ " + updateExit
                        + " -eq 0 ] || echo 'slurm_update error: Access/permission denied' >&2;"
                        + " exit " + updateExit + ";;\n"
                        + "  *) exit 1;;\n"
                        + "esac\n");
    }

    @Test
    void healthyGpusExitZeroWithStableJson() throws Exception {
        gpus("nvidia-smi/query-gpu-8-healthy.csv");
        assertEquals(0, run("health", "--check", "gpu", "--expected-gpus", "8", "--json"), err);
        JsonNode report = new ObjectMapper().readTree(out);
        assertEquals("node7", report.get("node").asText());
        assertEquals("PASSED", report.get("status").asText());
        assertEquals("NONE", report.get("action").asText());
        assertTrue(report.get("reason").isNull());
        assertEquals(1, report.get("checks").size());
        JsonNode gpu = report.get("checks").get(0);
        assertEquals(
                List.of("name", "status", "action", "summary", "evidence", "elapsedMillis"),
                iterable(gpu.fieldNames()));
        assertEquals("8 GPU(s) healthy", gpu.get("summary").asText());
    }

    @Test
    void aMissingGpuExitsUnhealthyAndSaysWhy() {
        gpus("nvidia-smi/query-gpu-7-ecc.csv");
        assertEquals(ExitCode.UNHEALTHY.code(), run("health", "--check", "gpu", "--expected-gpus", "8"), err);
        assertTrue(out.contains("gpu    FAILED  REPLACE  found 7 GPU(s), expected 8"), out);
        assertTrue(out.contains("  FAULT (REBOOT): GPU 1 (00000000:2A:00.0): 2 uncorrected ECC errors"), out);
        assertTrue(out.contains("node7: FAILED, action REPLACE"), out);
        assertEquals("", err);
    }

    @Test
    void theExpectedCountComesFromSlurmsGres() {
        gpus("nvidia-smi/query-gpu-7-ecc.csv");
        scontrol(0);
        assertEquals(ExitCode.UNHEALTHY.code(), run("health", "--check", "gpu"), err);
        assertTrue(out.contains("found 7 GPU(s), expected 8"), out);
        assertTrue(
                tools.calls("scontrol").contains("-o show node node7"),
                tools.calls("scontrol").toString());
    }

    @Test
    void dryRunPrintsTheMarkAndRunsNothing() throws Exception {
        gpus("nvidia-smi/query-gpu-7-ecc.csv");
        scontrol(0);
        assertEquals(
                ExitCode.UNHEALTHY.code(),
                run("health", "--check", "gpu", "--expected-gpus", "8", "--mark", "--dry-run", "--json"),
                err);
        JsonNode report = new ObjectMapper().readTree(out);
        assertEquals(
                bin.resolve("scontrol") + " update nodename=node7 state=fail reason=Action:Replace",
                report.get("markCommand").asText());
        assertTrue(report.get("dryRun").asBoolean());
        assertTrue(
                tools.calls("scontrol").stream().noneMatch(c -> c.startsWith("update")),
                "a dry run reads the node and changes nothing: " + tools.calls("scontrol"));
    }

    @Test
    void markSetsTheNodeToFailWithTheActionReason() {
        gpus("nvidia-smi/query-gpu-8-healthy.csv");
        tools.tool("dmesg", Answer.out("", "kernel-log/dmesg-xid-79-13-13.txt", 0));
        scontrol(0);
        // XID 79 and 13 only: reset-class, so the exit says "a reboot fixes it" (what the sweep reads)
        assertEquals(
                ExitCode.UNHEALTHY_REBOOT.code(),
                run("health", "--check", "gpu", "--expected-gpus", "8", "--mark"),
                err);
        // The node is read first (only a node in service is marked), then marked.
        assertTrue(
                tools.calls("scontrol").contains("-o show node node7"),
                tools.calls("scontrol").toString());
        assertEquals(
                List.of("update nodename=node7 state=fail reason=Action:Reboot"),
                tools.calls("scontrol").stream()
                        .filter(c -> c.startsWith("update"))
                        .toList());
        assertTrue(
                out.contains("marked: " + bin.resolve("scontrol") + " update nodename=node7 state=fail"
                        + " reason=Action:Reboot"),
                out);
    }

    @Test
    void aRefusedMarkIsASlurmFailureAfterTheReport() {
        gpus("nvidia-smi/query-gpu-7-ecc.csv");
        scontrol(1);
        assertEquals(ExitCode.SLURM_FAILED.code(), run("health", "--check", "gpu", "--expected-gpus", "8", "--mark"));
        assertTrue(out.contains("gpu    FAILED"), out);
        assertTrue(err.contains("could not mark node node7") && err.contains("permission denied"), err);
    }

    @Test
    void aPassingNodeIsNeverMarked() {
        gpus("nvidia-smi/query-gpu-8-healthy.csv");
        scontrol(0);
        assertEquals(0, run("health", "--check", "gpu", "--expected-gpus", "8", "--mark"), err);
        assertTrue(tools.calls("scontrol").isEmpty(), tools.calls("scontrol").toString());
    }

    @Test
    void absentToolsAreSkippedAndExitZero() throws Exception {
        assertEquals(
                0,
                run("health", "--check", "gpu,dcgm,neuron,efa,cpu", "--sysfs-root", emptySysfs.toString(), "--json"),
                err);
        JsonNode report = new ObjectMapper().readTree(out);
        assertEquals("SKIPPED", report.get("status").asText());
        for (JsonNode check : report.get("checks")) {
            assertEquals("SKIPPED", check.get("status").asText(), check.toString());
        }
        assertNull(report.get("markCommand").textValue());
    }

    /**
     * Asked for on a user's request (the agent's environment for its --health-command, or the
     * flag): DCGM's health watches run but not its diagnostic, CPU stress is skipped, and the
     * same check names stay valid.
     */
    @Test
    void onARequestNoCheckThatDisturbsJobsRuns() throws Exception {
        for (Map<String, String> asked : List.of(Map.of("AUTORESUME_CHECK", "on-request"), Map.<String, String>of())) {
            tools.tool(
                    "dcgmi",
                    Answer.out("health -c", "dcgmi/health-healthy.txt", 0),
                    Answer.out("diag -r 1 -j", "dcgmi/diag-r1-pass.json", 0));
            tools.tool("stress-ng", Answer.out("--verify", "stress-ng/success.txt", 0));
            String[] args = asked.isEmpty()
                    ? new String[] {"health", "--on-request", "--check", "dcgm,cpu", "--json"}
                    : new String[] {"health", "--check", "dcgm,cpu", "--json"};
            assertEquals(0, runWith(asked, args), err);
            JsonNode report = new ObjectMapper().readTree(out);
            assertEquals("PASSED", report.get("checks").get(0).get("status").asText(), out);
            assertEquals("SKIPPED", report.get("checks").get(1).get("status").asText(), out);
            assertTrue(
                    tools.calls("dcgmi").contains("health -c"),
                    tools.calls("dcgmi").toString());
            assertTrue(
                    tools.calls("dcgmi").stream().noneMatch(c -> c.startsWith("diag")),
                    tools.calls("dcgmi").toString());
            assertEquals(List.of(), tools.calls("stress-ng"));
            Files.deleteIfExists(bin.resolve("dcgmi.calls"));
        }
    }

    @Test
    void onASchedulesRunEveryCheckRunsInFull() {
        tools.tool(
                "dcgmi",
                Answer.out("health -c", "dcgmi/health-healthy.txt", 0),
                Answer.out("diag -r 1 -j", "dcgmi/diag-r1-pass.json", 0));
        tools.tool("stress-ng", Answer.out("--verify", "stress-ng/success.txt", 0));
        assertEquals(
                0,
                runWith(Map.of("AUTORESUME_CHECK", "schedule"), "health", "--check", "dcgm,cpu", "--cpu-seconds", "1"),
                err);
        assertTrue(
                tools.calls("dcgmi").contains("diag -r 1 -j"),
                tools.calls("dcgmi").toString());
        assertEquals(
                1, tools.calls("stress-ng").size(), tools.calls("stress-ng").toString());
    }

    @Test
    void anUnknownCheckIsAUsageError() {
        assertEquals(ExitCode.USAGE.code(), run("health", "--check", "gpus"));
        assertTrue(err.contains("no health check called \"gpus\"; known: gpu, dcgm, neuron, efa, cpu, disk"), err);
    }

    @Test
    void aBadNodeNameForMarkIsAUsageError() {
        gpus("nvidia-smi/query-gpu-7-ecc.csv");
        scontrol(0);
        assertEquals(
                ExitCode.USAGE.code(),
                run("health", "--check", "gpu", "--expected-gpus", "8", "--mark", "--node", "node7;reboot"));
        assertTrue(err.contains("not a valid node name"), err);
        assertTrue(tools.calls("scontrol").isEmpty());
    }

    @Test
    void healthToolsNeverGoThroughTheRetryingSlurmRunner() {
        gpus("nvidia-smi/query-gpu-8-healthy.csv");
        CommandRunner slurmOnly = request -> {
            throw new AssertionError("a health tool reached the Slurm runner: " + request.display());
        };
        CommandLine cli = CliFactory.create(
                new CliContext(Map.of("PATH", tools.path()), () -> slurmOnly, CommonsExecCommandRunner::new));
        cli.setOut(new PrintWriter(new StringWriter()));
        assertEquals(0, cli.execute("health", "--check", "gpu", "--expected-gpus", "8"));
        assertEquals(2, tools.calls("nvidia-smi").size());
    }

    private static List<String> iterable(java.util.Iterator<String> names) {
        List<String> list = new java.util.ArrayList<>();
        names.forEachRemaining(list::add);
        return list;
    }

    /**
     * Slurm upgraded under a plugin built for the old release: health says srun skips it and what
     * to rebuild, in the text and the JSON, and the node stays PASSED (software, not hardware).
     * The plugin is a real one: a copy of one of the host's Slurm plugins under its name.
     */
    @Test
    void aPluginBuiltForAnotherSlurmIsReportedAndTheNodeIsNotFailedForIt() throws Exception {
        gpus("nvidia-smi/query-gpu-8-healthy.csv");
        Path plugin = bin.resolve("auto_resume.so");
        Files.copy(HostPlugins.selectConsTres(), plugin);
        String built = PluginRelease.builtFor(plugin).orElseThrow().toString();
        slurmConf = Files.writeString(bin.resolve("slurm.conf"), "ClusterName=c\n");
        Files.writeString(bin.resolve("plugstack.conf"), "optional " + plugin + " supervisor=/usr/bin/autoresume\n");
        tools.script("scontrol", "#!/bin/sh\n[ \"$1\" = --version ] && echo 'slurm 99.11.2' && exit 0\nexit 1\n");

        assertEquals(0, run("health", "--check", "gpu", "--expected-gpus", "8", "--json"), err);
        JsonNode view = new ObjectMapper().readTree(out).get("spankPlugins").get(0);
        assertEquals(plugin.toString(), view.get("plugin").asText());
        assertEquals(built, view.get("builtFor").asText());
        assertEquals("99.11.2", view.get("running").asText());
        assertFalse(view.get("loads").asBoolean());
        assertTrue(view.get("problem").asText().contains("Rebuild it against Slurm 99.11"), view.toString());

        assertEquals(0, run("health", "--check", "gpu", "--expected-gpus", "8"), err);
        assertTrue(
                out.contains(
                        "spank plugin: " + plugin + " was built for Slurm " + built + " and this node runs 99.11.2"),
                out);
    }
}
