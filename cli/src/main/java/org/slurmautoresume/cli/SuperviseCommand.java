package org.slurmautoresume.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.slurmautoresume.configfile.ConfigProblem;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.exec.ControllerOutage;
import org.slurmautoresume.supervisor.config.AutoresumeConfig;
import org.slurmautoresume.supervisor.config.ConfigLoader;
import org.slurmautoresume.supervisor.config.ConfigResult;
import org.slurmautoresume.supervisor.config.ConfigSource;
import org.slurmautoresume.supervisor.policy.SignalNumber;
import org.slurmautoresume.supervisor.step.StepSupervisor;
import org.slurmautoresume.supervisor.step.launch.Posix;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "supervise",
        mixinStandardHelpOptions = true,
        description = {
            "Run an srun command as a supervised step. The SPANK plugin starts this for"
                    + " `srun --auto-resume=1 ...`, passing srun's whole command line; you can also run it by hand:",
            "",
            "  autoresume supervise -- srun -N2 train.sh",
            "",
            "The step's output reaches you byte for byte. SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 and"
                    + " SIGCONT are passed to srun. The exit status is srun's (128+N when a signal N ended it).",
            "When the step ends, Slurm's records decide what happened: cancelled, time limit, preempted,"
                    + " requeued and interrupted steps are never re-run; a failure on healthy nodes is re-run in"
                    + " place up to $" + SupervisorSettings.MAX_APP_RETRIES + " times (default 0).",
            "",
            "Log rules and the restart policy come from configuration files (docs/log-rules.md): the site file"
                    + " ($" + ConfigLoader.SITE_ENV + ", else " + ConfigLoader.DEFAULT_SITE + " when it exists) and the"
                    + " job's file ($" + ConfigLoader.JOB_ENV + "), the job's winning field by field. A rule that goes"
                    + " HANGING, SLOW or FAULTED ends the attempt and the policy decides: re-run in place, replace"
                    + " nodes and re-run, requeue the job, or give up. $" + SupervisorSettings.MAX_APP_RETRIES + ", $"
                    + SupervisorSettings.MAX_NODE_RETRIES + " and $" + SupervisorSettings.ON_EXHAUSTED + ", when set,"
                    + " override the files. Check files with `autoresume config check`."
        })
final class SuperviseCommand implements Callable<Integer> {

    private final CliContext context;

    @Parameters(arity = "1..*", paramLabel = "SRUN_ARGV", description = "The srun command line, srun first.")
    private List<String> srunArgv = new ArrayList<>();

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "The job's configuration file (default: $" + ConfigLoader.JOB_ENV + ").")
    private Path jobFile;

    @Option(
            names = "--site-config",
            paramLabel = "FILE",
            description = "The site configuration file (default: $" + ConfigLoader.SITE_ENV + ", else "
                    + ConfigLoader.DEFAULT_SITE + " when it exists).")
    private Path siteFile;

    SuperviseCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws InterruptedException {
        return supervise(context, srunArgv, Optional.ofNullable(siteFile), Optional.ofNullable(jobFile));
    }

    /**
     * True for exactly what the SPANK plugin runs, {@code supervise -- SRUN_ARGV...}. That form
     * skips building the whole picocli command tree, which costs more start-up than the JVM
     * itself and is paid on every supervised srun; {@code supervise --help} and hand-typed uses
     * still go through picocli.
     */
    static boolean isPluginHandOff(String[] args) {
        return args.length >= 3 && args[0].equals("supervise") && args[1].equals("--");
    }

    /** Runs the plugin's hand-off; the exit status to end with. */
    static int handOff(CliContext context, String[] args) {
        try {
            return supervise(context, List.of(args).subList(2, args.length), Optional.empty(), Optional.empty());
        } catch (CliException e) {
            System.err.println("autoresume: " + e.getMessage());
            return e.exitCode().code();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.FAILED.code();
        }
    }

    private static int supervise(
            CliContext context, List<String> srunArgv, Optional<Path> siteFile, Optional<Path> jobFile)
            throws InterruptedException {
        SupervisorLog log =
                new SupervisorLog(System.err, context.env("SLURM_JOB_ID").orElse(null));
        SupervisorSettings settings;
        try {
            settings = SupervisorSettings.fromEnvironment(context.environment());
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, e.getMessage(), e);
        }
        Optional<AutoresumeConfig> config = configuration(context, siteFile, jobFile, log);
        // Until the cluster's SlurmctldTimeout is read: Slurm's default, plus the margin.
        ControllerOutage outage = new ControllerOutage(
                settings.controllerOutage()
                        .orElse(ControllerOutage.boundFor(ControllerOutage.DEFAULT_SLURMCTLD_TIMEOUT)),
                ControllerOutage.Listener.NONE);
        CommandRunner slurmRunner = context.runner(outage);
        StepSupervisor supervisor;
        try {
            supervisor = new StepSupervisor(
                    context.slurm(slurmRunner), slurmRunner, settings, config, context.environment(), log, outage);
        } catch (IllegalArgumentException e) { // an AUTORESUME_* variable that makes no sense
            throw new CliException(ExitCode.USAGE, e.getMessage(), e);
        }
        installSignalHandlers(supervisor);
        return supervisor.run(srunArgv);
    }

    /**
     * The job's merged configuration files; empty when there are none, without loading the YAML
     * machinery at all (it would be paid by every supervised srun). A broken file stops the step
     * before it starts: running it with rules or budgets other than the user wrote would be worse.
     */
    private static Optional<AutoresumeConfig> configuration(
            CliContext context, Optional<Path> siteFile, Optional<Path> jobFile, SupervisorLog log) {
        List<ConfigSource> sources = ConfigSource.of(siteFile, jobFile, context.environment()).stream()
                .filter(source -> source.required() || Files.exists(source.path()))
                .toList();
        if (sources.isEmpty()) {
            return Optional.empty();
        }
        ConfigResult result = ConfigLoader.load(sources);
        for (ConfigProblem warning : result.warnings()) {
            log.say("configuration: " + warning);
        }
        if (!result.ok()) {
            throw new CliException(
                    ExitCode.CONFIG_INVALID,
                    "the step was not started: its configuration is not"
                            + " usable (check it with `autoresume config check`):\n"
                            + result.errors().stream()
                                    .map(ConfigProblem::toString)
                                    .collect(Collectors.joining("\n")));
        }
        return result.config();
    }

    private static void installSignalHandlers(StepSupervisor supervisor) {
        for (SignalNumber signal : SignalNumber.values()) {
            try {
                sun.misc.Signal.handle(
                        new sun.misc.Signal(signal.name()),
                        ignored -> supervisor.onSignal(
                                signal, signal == SignalNumber.INT && Posix.inTerminalForeground()));
            } catch (IllegalArgumentException e) {
                System.err.println("[auto-resume] cannot forward " + signal.displayName() + ": " + e.getMessage());
            }
        }
    }
}
