package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class CliFactoryTest {

    private static CommandLine commandLine(String... args) {
        return CliFactory.create(new CliContext(Map.of(), () -> null), args);
    }

    @Test
    void aCommandLineNamingASubcommandBuildsOnlyThatOne() {
        assertEquals(
                List.of("nodes"),
                List.copyOf(commandLine("nodes", "--json").getSubcommands().keySet()));
        assertEquals(
                List.of("health"),
                List.copyOf(commandLine("health").getSubcommands().keySet()));
        // Its own subcommands come with it.
        CommandLine node =
                commandLine("node", "status", "node1").getSubcommands().get("node");
        assertTrue(
                node.getSubcommands().containsKey("status"),
                node.getSubcommands().toString());
    }

    @Test
    void aBareVersionBuildsNoSubcommand() {
        assertTrue(commandLine("--version").getSubcommands().isEmpty());
        assertTrue(commandLine("-V").getSubcommands().isEmpty());
    }

    @Test
    void helpAndUnknownWordsSeeEverySubcommand() {
        List<String> all = List.copyOf(AutoresumeCommand.SUBCOMMANDS.keySet());
        assertEquals(all, List.copyOf(commandLine("--help").getSubcommands().keySet()));
        assertEquals(all, List.copyOf(commandLine("nodez").getSubcommands().keySet()));
        assertEquals(all, List.copyOf(commandLine().getSubcommands().keySet()));
    }

    @Test
    void everySubcommandIsListedUnderItsOwnName() {
        CommandLine all = CliFactory.create(new CliContext(Map.of(), () -> null));
        assertEquals(
                List.of(
                        "supervise",
                        "env",
                        "nodes",
                        "job",
                        "agent",
                        "agent-call",
                        "node",
                        "sweep",
                        "health",
                        "config",
                        "lifecycle",
                        "history",
                        "plugin"),
                List.copyOf(all.getSubcommands().keySet()));
    }

    @Test
    void eachSubcommandIsRegisteredUnderTheNameItsAnnotationGives() {
        AutoresumeCommand.SUBCOMMANDS.forEach((name, type) -> assertEquals(
                type.getAnnotation(picocli.CommandLine.Command.class).name(), name, type.getName()));
    }

    @Test
    void supervisesArgumentsStaySrunsWhenBuiltAlone() {
        CommandLine supervise =
                commandLine("supervise", "--", "srun", "-N2").getSubcommands().get("supervise");
        assertTrue(supervise.isStopAtPositional() && supervise.isUnmatchedOptionsArePositionalParams());
    }

    @Test
    void theBareVersionShortcutPrintsWhatPicocliWould() {
        CliHarness cli = new CliHarness(Map.of());
        assertEquals(0, cli.run("--version"), cli.err);
        assertEquals(String.join("\n", new VersionProvider().getVersion()) + "\n", cli.out);
        assertTrue(Main.isBareVersion(new String[] {"--version"}) && Main.isBareVersion(new String[] {"-V"}));
        assertTrue(!Main.isBareVersion(new String[] {"--version", "nodes"}) && !Main.isBareVersion(new String[] {}));
    }
}
