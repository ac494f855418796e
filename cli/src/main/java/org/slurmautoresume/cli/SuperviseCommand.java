package org.slurmautoresume.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.slurmautoresume.bridge.step.Posix;
import org.slurmautoresume.bridge.step.SignalNumber;
import org.slurmautoresume.bridge.step.StepSupervisor;
import org.slurmautoresume.bridge.step.SupervisorLog;
import org.slurmautoresume.bridge.step.SupervisorSettings;
import picocli.CommandLine.Command;
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
                + " place up to $" + SupervisorSettings.MAX_APP_RETRIES + " times (default 0)."
        })
final class SuperviseCommand implements Callable<Integer> {

    private final CliContext context;

    @Parameters(arity = "1..*", paramLabel = "SRUN_ARGV", description = "The srun command line, srun first.")
    private List<String> srunArgv = new ArrayList<>();

    SuperviseCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws InterruptedException {
        return supervise(context, srunArgv);
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
            return supervise(context, List.of(args).subList(2, args.length));
        } catch (CliException e) {
            System.err.println("autoresume: " + e.getMessage());
            return e.exitCode().code();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.FAILED.code();
        }
    }

    private static int supervise(CliContext context, List<String> srunArgv) throws InterruptedException {
        SupervisorLog log = new SupervisorLog(System.err, context.env("SLURM_JOB_ID").orElse(null));
        StepSupervisor supervisor;
        try {
            SupervisorSettings settings = SupervisorSettings.fromEnvironment(context.environment());
            supervisor = new StepSupervisor(context.slurm(), context.runner(), settings, context.environment(), log);
        } catch (IllegalArgumentException e) { // an AUTORESUME_* variable that makes no sense
            throw new CliException(ExitCode.USAGE, e.getMessage(), e);
        }
        installSignalHandlers(supervisor);
        return supervisor.run(srunArgv);
    }

    private static void installSignalHandlers(StepSupervisor supervisor) {
        for (SignalNumber signal : SignalNumber.values()) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(signal.name()), ignored -> supervisor.onSignal(signal,
                        signal == SignalNumber.INT && Posix.inTerminalForeground()));
            } catch (IllegalArgumentException e) {
                System.err.println("[auto-resume] cannot forward " + signal.displayName() + ": " + e.getMessage());
            }
        }
    }
}
