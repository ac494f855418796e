package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.slurm.exec.CommonsExecCommandRunner;
import org.slurmautoresume.slurm.parse.Fixtures;
import picocli.CommandLine;

/** The words run without picocli give what picocli gives, and every other command line still goes to picocli. */
class FastPathTest {

    private static final List<String> NODES = List.of("-o", "show", "node");

    @TempDir
    Path emptyBin;

    @Test
    void nodesJsonPrintsWhatPicocliPrints() {
        String nodes = Fixtures.read("slurm-22.05", "show-node-all.txt");
        CliHarness picocli = new CliHarness(Map.of()).answer(NODES, 0, nodes, "");
        CliHarness fast = new CliHarness(Map.of()).answer(NODES, 0, nodes, "");
        assertSameResult(picocli, picocli.run("nodes", "--json"), fast, fast.runFast("nodes", "--json"));
        assertEquals(0, fast.runFast("nodes", "--json"), fast.err);
    }

    @Test
    void nodesJsonFailsAsPicocliFails() {
        CliHarness picocli = new CliHarness(Map.of()).answer(NODES, 1, "", "slurm_load_node error: Unable to contact");
        CliHarness fast = new CliHarness(Map.of()).answer(NODES, 1, "", "slurm_load_node error: Unable to contact");
        int code = picocli.run("nodes", "--json");
        assertSameResult(picocli, code, fast, fast.runFast("nodes", "--json"));
        assertEquals(ExitCode.SLURM_FAILED.code(), code, picocli.err);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void healthDiskPrintsWhatPicocliPrints(boolean onRequest) {
        String[] args = onRequest
                ? new String[] {"health", "--check", "disk", "--on-request"}
                : new String[] {"health", "--check", "disk"};
        // No tools, no Slurm configuration of this machine's: only the disk check of / runs.
        Map<String, String> environment = Map.of(
                "PATH", emptyBin.toString(),
                "SLURMD_NODENAME", "node7",
                "SLURM_CONF", emptyBin.resolve("no-slurm.conf").toString());
        CliHarness picocli = new CliHarness(environment, CommonsExecCommandRunner::new);
        CliHarness fast = new CliHarness(environment, CommonsExecCommandRunner::new);
        assertSameResult(picocli, picocli.run(args), fast, fast.runFast(args));
    }

    @ParameterizedTest
    @ValueSource(strings = {"health", "health --mark"})
    void everyCheckPrintsWhatPicocliPrints(String words) {
        // No tools and no scontrol: every check is skipped, and a passing run has nothing to lift.
        Map<String, String> environment = Map.of(
                "PATH", emptyBin.toString(),
                "SLURMD_NODENAME", "node7",
                "SLURM_CONF", emptyBin.resolve("no-slurm.conf").toString());
        CliHarness picocli = new CliHarness(environment, CommonsExecCommandRunner::new);
        CliHarness fast = new CliHarness(environment, CommonsExecCommandRunner::new);
        String[] args = words.split(" ");
        assertSameResult(picocli, picocli.run(args), fast, fast.runFast(args));
    }

    @Test
    void nodesJsonIsSetUpAsPicocliSetsItUp() throws Exception {
        CliContext context = new CliHarness(Map.of()).context();
        assertSameFields(parsed(context, "nodes", "--json"), NodesCommand.json(context));
    }

    @Test
    void healthDiskIsSetUpAsPicocliSetsItUp() throws Exception {
        CliContext context = new CliHarness(Map.of()).context();
        assertSameFields(
                parsed(context, "health", "--check", "disk"),
                HealthCommand.checking(context, List.of("disk"), false, false));
        assertSameFields(
                parsed(context, "health", "--check", "disk", "--on-request"),
                HealthCommand.checking(context, List.of("disk"), true, false));
        assertSameFields(parsed(context, "health", "--mark"), HealthCommand.checking(context, List.of(), false, true));
        assertSameFields(parsed(context, "health"), HealthCommand.checking(context, List.of(), false, false));
    }

    @Test
    void takesOnlyItsOwnShapes() {
        CliContext context = new CliHarness(Map.of()).context();
        assertNotNull(FastPath.match(context, new String[] {"nodes", "--json"}));
        assertNotNull(FastPath.match(context, new String[] {"health", "--check", "disk"}));
        assertNotNull(FastPath.match(context, new String[] {"health", "--check", "disk", "--on-request"}));
        assertNotNull(FastPath.match(context, new String[] {"health", "--mark"}));
        assertNotNull(FastPath.match(context, new String[] {"health"}));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "--version",
                "--help",
                "nodes",
                "nodes --json --help",
                "nodes --help",
                "nodes --json node1",
                "nodes node1 --json",
                "nodes --json --json",
                "nodes --JSON",
                "nodes --json=true",
                "--json nodes",
                "nodes -- --json",
                "health --json",
                "health -v",
                "health --on-request",
                "health --help",
                "health --check",
                "health --check disk,gpu",
                "health --check gpu",
                "health --check=disk",
                "health --check DISK",
                "health --check disk --json",
                "health --check disk --mark",
                "health --check disk --help",
                "health --check disk -h",
                "health --check disk --on-request --json",
                "health --on-request --check disk",
                "health --check disk --check disk",
                "health --check disk --on-request=true",
                "health --mark --dry-run",
                "health --mark --json",
                "health --mark=true",
                "health --dry-run --mark",
                "health --mark --check disk",
                "health --check disk --mark --on-request",
                "supervise -- nodes --json",
                "env --job 1"
            })
    void leavesEveryOtherCommandLineToPicocli(String words) {
        String[] args = words.isEmpty() ? new String[0] : words.split(" ");
        assertNull(FastPath.match(new CliHarness(Map.of()).context(), args), words);
    }

    private static void assertSameResult(CliHarness picocli, int picocliCode, CliHarness fast, Integer fastCode) {
        assertEquals(picocli.out, fast.out);
        assertEquals(picocli.err, fast.err);
        assertEquals(picocliCode, fastCode, picocli.err);
    }

    private static Object parsed(CliContext context, String... args) {
        CommandLine.ParseResult result = CliFactory.create(context, args).parseArgs(args);
        return result.subcommand().commandSpec().userObject();
    }

    /** Every field but picocli's own spec (which the fast path never reads) holds the same value. */
    private static void assertSameFields(Object picocli, Object fast) throws IllegalAccessException {
        assertEquals(picocli.getClass(), fast.getClass());
        for (Field field : picocli.getClass().getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers()) || field.getType() == CommandLine.Model.CommandSpec.class) {
                continue;
            }
            field.setAccessible(true);
            assertEquals(field.get(picocli), field.get(fast), field.getName());
        }
    }
}
