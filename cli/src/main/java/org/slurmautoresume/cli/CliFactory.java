package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import java.util.Collection;
import java.util.List;
import org.slurmautoresume.lifecycle.apply.ApplyException;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.hostlist.HostlistException;
import picocli.CommandLine;

/** Builds the configured command line; {@link Main} and the tests both use it. */
public final class CliFactory {

    private CliFactory() {}

    /** The whole command line, every subcommand registered (--help, documentation, tests of all). */
    public static CommandLine create(CliContext context) {
        return create(context, AutoresumeCommand.SUBCOMMANDS.keySet());
    }

    /**
     * The command line for these arguments: only the subcommand they name (its own subcommands
     * included), none for a bare --version, every one where the words name none (--help, a
     * misspelt name, no words at all: for picocli's list and its suggestions).
     */
    public static CommandLine create(CliContext context, String[] args) {
        return create(context, needed(args));
    }

    static Collection<String> needed(String[] args) {
        if (args.length == 0) {
            return AutoresumeCommand.SUBCOMMANDS.keySet(); // picocli's usage then lists them all
        }
        for (String arg : args) {
            if ("--".equals(arg)) {
                break;
            }
            if (!arg.startsWith("-")) {
                return AutoresumeCommand.SUBCOMMANDS.containsKey(arg)
                        ? List.of(arg)
                        : AutoresumeCommand.SUBCOMMANDS.keySet();
            }
            if (!Main.isVersionFlag(arg)) {
                return AutoresumeCommand.SUBCOMMANDS.keySet(); // --help, or an option picocli should name
            }
        }
        return List.of();
    }

    private static CommandLine create(CliContext context, Collection<String> subcommands) {
        ContextFactory factory = new ContextFactory(context);
        CommandLine commandLine = new CommandLine(new AutoresumeCommand(), factory);
        for (String name : subcommands) {
            commandLine.addSubcommand(name, new CommandLine(AutoresumeCommand.SUBCOMMANDS.get(name), factory));
        }
        commandLine.setExecutionExceptionHandler(CliFactory::handleExecutionException);
        commandLine.setParameterExceptionHandler(CliFactory::handleParameterException);
        commandLine.setExitCodeExceptionMapper(CliFactory::exitCodeOf);
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        // Everything after `supervise` is srun's command line, options included.
        CommandLine supervise = commandLine.getSubcommands().get("supervise");
        if (supervise != null) {
            supervise.setStopAtPositional(true);
            supervise.setUnmatchedOptionsArePositionalParams(true);
        }
        return commandLine;
    }

    private static int handleExecutionException(
            Exception e, CommandLine commandLine, CommandLine.ParseResult parseResult) {
        return reportFailure(e, commandLine.getErr());
    }

    /** What a command that threw prints on stderr, and its exit status; {@link FastPath} reports the same. */
    static int reportFailure(Exception e, PrintWriter err) {
        int code = exitCodeOf(e);
        if (code == ExitCode.INTERNAL.code()) {
            err.println("autoresume: internal error: " + e);
            e.printStackTrace(err);
        } else {
            err.println("autoresume: " + e.getMessage());
        }
        err.flush();
        return code;
    }

    private static int handleParameterException(CommandLine.ParameterException e, String[] args) {
        CommandLine commandLine = e.getCommandLine();
        PrintWriter err = commandLine.getErr();
        err.println("autoresume: " + e.getMessage());
        err.println("Try '" + commandLine.getCommandSpec().qualifiedName() + " --help' for usage.");
        err.flush();
        return ExitCode.USAGE.code();
    }

    static int exitCodeOf(Throwable e) {
        if (e instanceof CliException cli) {
            return cli.exitCode().code();
        }
        if (e instanceof ApplyException) {
            return ExitCode.CONFIG_INVALID.code();
        }
        if (e instanceof HostlistException) {
            return ExitCode.USAGE.code();
        }
        if (e instanceof SlurmException slurm) {
            return switch (slurm.kind()) {
                case NOT_FOUND -> ExitCode.NOT_FOUND.code();
                case UNAVAILABLE -> ExitCode.SLURM_UNAVAILABLE.code();
                case TIMEOUT -> ExitCode.TIMEOUT.code();
                case COMMAND_FAILED, BAD_OUTPUT -> ExitCode.SLURM_FAILED.code();
            };
        }
        return ExitCode.INTERNAL.code();
    }

    /** Gives every command class that wants one the {@link CliContext} through its constructor. */
    private static final class ContextFactory implements CommandLine.IFactory {
        private final CliContext context;
        private final CommandLine.IFactory fallback = CommandLine.defaultFactory();

        ContextFactory(CliContext context) {
            this.context = context;
        }

        @Override
        public <K> K create(Class<K> type) throws Exception {
            try {
                Constructor<K> constructor = type.getDeclaredConstructor(CliContext.class);
                return constructor.newInstance(context);
            } catch (NoSuchMethodException e) {
                return fallback.create(type);
            }
        }
    }
}
