package org.slurmautoresume.cli;

import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slurmautoresume.lifecycle.apply.LocalHost;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import picocli.CommandLine;

/** Runs the real command line over a runner that answers scontrol calls with recorded output. */
final class CliHarness {

    final CommandRunner runner = mock(CommandRunner.class);
    private final Map<String, String> environment;
    private final Supplier<CommandRunner> runnerUsed;
    String out;
    String err;
    /** Who runs the command; root unless a test says otherwise. */
    org.slurmautoresume.slurm.model.Caller caller = new org.slurmautoresume.slurm.model.Caller(0, "root");
    /** No terminal unless a test gives one. */
    CliContext.Prompt prompt = CliContext.Prompt.NONE;

    java.time.LocalDateTime now = java.time.LocalDateTime.parse("2026-11-22T04:30:00");
    /** This machine as `lifecycle apply` sees it; the real one unless a test says otherwise. */
    private final LocalHost localHost;

    /** A Slurm 22.05 installation: scontrol answers --version, then text queries. */
    CliHarness(Map<String, String> environment) {
        this(environment, LocalHost.system());
    }

    /** As above, on a machine with the given addresses and name. */
    CliHarness(Map<String, String> environment, LocalHost localHost) {
        this.environment = environment;
        this.localHost = localHost;
        this.runnerUsed = () -> runner;
        answer(List.of("--version"), 0, "slurm-wlm 22.05.8\n", "");
    }

    /** The command line over a runner of the test's choosing (a real one, for fake tools on PATH). */
    CliHarness(Map<String, String> environment, Supplier<CommandRunner> realRunner) {
        this.environment = environment;
        this.localHost = LocalHost.system();
        this.runnerUsed = realRunner;
    }

    /** When scontrol is called with exactly these arguments, print this. */
    CliHarness answer(List<String> scontrolArgs, int exit, String stdout, String stderr) {
        when(runner.run(argThat(
                        r -> r != null && r.argv().subList(1, r.argv().size()).equals(scontrolArgs))))
                .thenAnswer(inv -> new CommandResult(inv.getArgument(0), exit, stdout, stderr, false, Duration.ZERO));
        return this;
    }

    CliContext context() {
        return new CliContext(environment, runnerUsed, runnerUsed, () -> caller, prompt, () -> now, localHost);
    }

    /** As {@link #run} but through {@link FastPath}: null, and nothing run, when it does not take these words. */
    Integer runFast(String... args) {
        FastPath.Command command = FastPath.match(context(), args);
        if (command == null) {
            return null;
        }
        StringWriter outBuffer = new StringWriter();
        StringWriter errBuffer = new StringWriter();
        int code = FastPath.execute(command, new PrintWriter(outBuffer, true), new PrintWriter(errBuffer, true));
        out = outBuffer.toString();
        err = errBuffer.toString();
        return code;
    }

    int run(String... args) {
        // As Main builds it: only the subcommand the arguments name is registered.
        CommandLine cli = CliFactory.create(context(), args);
        StringWriter outBuffer = new StringWriter();
        StringWriter errBuffer = new StringWriter();
        cli.setOut(new PrintWriter(outBuffer, true));
        cli.setErr(new PrintWriter(errBuffer, true));
        int code = cli.execute(args);
        out = outBuffer.toString();
        err = errBuffer.toString();
        return code;
    }
}
