package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.nodeops.health.DiskDrain;
import org.slurmautoresume.nodeops.health.FakeTools;
import org.slurmautoresume.slurm.exec.CommonsExecCommandRunner;

/**
 * {@code autoresume health --check disk --mark} end to end over a stand-in scontrol that shows
 * node7 as the test says: a full filesystem drains a node in service, and a later passing run
 * resumes it only while the drain is the check's own.
 */
class HealthDiskDrainCommandTest {

    @TempDir
    Path bin;

    @TempDir
    Path data;

    FakeTools tools;
    Path mounts;
    String out;
    String err;

    @BeforeEach
    void setUp() throws IOException {
        tools = new FakeTools(bin);
        mounts = Files.writeString(bin.resolve("mounts"), "/dev/sdb1 " + data + " ext4 rw,relatime 0 0\n");
    }

    /** scontrol answering node7 in {@code state} with {@code reason} ("" for none); updates succeed. */
    private void node(String state, String reason) {
        String record = "NodeName=node7 Arch=x86_64 CoresPerSocket=4 CPUAlloc=0 CPUTot=4 Gres=(null)"
                + " NodeAddr=10.0.0.7 NodeHostName=node7 Port=6818 Version=22.05.8 State=" + state + " Partitions=gpu"
                + (reason.isEmpty() ? "" : " Reason=" + reason);
        tools.script(
                "scontrol",
                "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + bin.resolve("scontrol.calls") + "'\n"
                        + "case \"$1\" in\n"
                        + "  --version) echo 'slurm-wlm 22.05.8';;\n"
                        + "  -o) cat <<'EOF'\n" + record + "\nEOF\n;;\n"
                        + "  update) exit 0;;\n"
                        + "  *) exit 1;;\n"
                        + "esac\n");
    }

    /** health --check disk on the temporary mount, floor {@code minFree} %, with {@code more} arguments. */
    private int health(int minFree, String... more) {
        List<String> args = new ArrayList<>(List.of(
                "health",
                "--check",
                "disk",
                "--mount",
                data.toString(),
                "--mounts-file",
                mounts.toString(),
                "--min-free-percent",
                Integer.toString(minFree),
                "--kernel-log",
                "-"));
        args.addAll(List.of(more));
        CliHarness cli = new CliHarness(
                Map.of(
                        "PATH",
                        tools.path(),
                        "SLURMD_NODENAME",
                        "node7",
                        "SLURM_CONF",
                        bin.resolve("no-slurm.conf").toString()),
                CommonsExecCommandRunner::new);
        int code = cli.run(args.toArray(String[]::new));
        out = cli.out;
        err = cli.err;
        return code;
    }

    private List<String> updates() {
        return tools.calls("scontrol").stream()
                .filter(c -> c.startsWith("update "))
                .toList();
    }

    @Test
    void aFullFilesystemDrainsTheNodeWithTheChecksOwnReasonNeverFail() throws IOException {
        node("IDLE", "");
        assertEquals(ExitCode.UNHEALTHY_FREE_SPACE.code(), health(100, "--mark", "--json"), err);
        JsonNode report = new ObjectMapper().readTree(out);
        assertEquals("FREE_SPACE", report.get("action").asText());
        assertEquals("mark", report.get("nodeUpdate").asText());
        List<String> updates = updates();
        assertEquals(1, updates.size(), updates.toString());
        assertTrue(
                updates.get(0)
                        .matches("update nodename=node7 state=drain reason=autoresume: disk full: "
                                + java.util.regex.Pattern.quote(data.toString()) + " \\d{1,3}% used"),
                updates.toString());
    }

    @Test
    void anotherReasonIsNotOverwrittenByTheDrain() throws IOException {
        node("IDLE+DRAIN", "bad DIMM, do not use [root@2026-11-22T04:14:46]");
        assertEquals(ExitCode.UNHEALTHY_FREE_SPACE.code(), health(100, "--mark", "--json"), err);
        assertEquals(
                "leave-alone",
                new ObjectMapper().readTree(out).get("nodeUpdate").asText());
        assertEquals(List.of(), updates());
    }

    @Test
    void theChecksOwnDrainIsLiftedOnceSpaceIsBack() throws IOException {
        node("IDLE+DRAIN", "autoresume: disk full: " + data + " 99% used [root@2026-11-22T04:14:46]");
        assertEquals(0, health(0, "--mark", "--json"), err);
        JsonNode report = new ObjectMapper().readTree(out);
        assertEquals("resume", report.get("nodeUpdate").asText());
        assertEquals(
                bin.resolve("scontrol") + " update nodename=node7 state=resume",
                report.get("markCommand").asText());
        assertEquals(List.of("update nodename=node7 state=resume"), updates());
    }

    @Test
    void anAdministratorsOrNhcsDrainIsNeverLifted() throws IOException {
        for (String reason : List.of(
                "bad DIMM, do not use [root@2026-11-22T04:14:46]",
                "NHC: check_fs_free: " + data + " 99% used [root@2026-11-22T04:14:46]",
                "autoresume: disk full: " + data + " 99% used [admin@2026-11-22T04:14:46]")) {
            node("IDLE+DRAIN", reason);
            assertEquals(0, health(0, "--mark", "--json"), err);
            assertEquals(
                    "leave-alone",
                    new ObjectMapper().readTree(out).get("nodeUpdate").asText(),
                    reason);
            assertEquals(List.of(), updates(), reason);
        }
    }

    @Test
    void aDryRunShowsTheLiftAndRunsNothing() throws IOException {
        node("IDLE+DRAIN", "autoresume: disk full: " + data + " 99% used [root@2026-11-22T04:14:46]");
        assertEquals(0, health(0, "--mark", "--dry-run"), err);
        assertTrue(out.contains("would run: " + bin.resolve("scontrol") + " update nodename=node7 state=resume"), out);
        assertEquals(List.of(), updates());
    }

    @Test
    void aPassingRunWithoutTheDiskCheckNeverReadsTheNode() {
        node("IDLE+DRAIN", "autoresume: disk full: " + data + " 99% used [root@2026-11-22T04:14:46]");
        CliHarness cli = new CliHarness(
                Map.of(
                        "PATH",
                        tools.path(),
                        "SLURMD_NODENAME",
                        "node7",
                        "SLURM_CONF",
                        bin.resolve("no-slurm.conf").toString()),
                CommonsExecCommandRunner::new);
        assertEquals(0, cli.run("health", "--check", "cpu", "--mark", "--kernel-log", "-"), cli.err);
        assertEquals(List.of(), tools.calls("scontrol"));
    }

    @Test
    void theHelpNamesTheReasonPrefixAdministratorsMustLeaveToTheCheck() {
        CliHarness cli = new CliHarness(Map.of("PATH", tools.path()), CommonsExecCommandRunner::new);
        assertEquals(0, cli.run("health", "--help"), cli.err);
        assertTrue(cli.out.contains("\"" + DiskDrain.PREFIX + "MOUNT N% used\""), cli.out);
    }
}
