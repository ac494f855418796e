package org.slurmautoresume.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
        name = "autoresume",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {
            "Slurm-native auto-resume for multi-node training job steps.",
            "When a node dies under a step started with `srun --auto-resume=1`, the step is re-run"
                + " on a repaired allocation instead of the whole job being requeued."
        },
        subcommands = {SuperviseCommand.class, EnvCommand.class, NodesCommand.class, JobCommand.class,
            AgentCommand.class, AgentCallCommand.class, NodeCommand.class, SweepCommand.class, HealthCommand.class,
            ConfigCommand.class, LifecycleCommand.class, HistoryCommand.class, PluginCommand.class},
        footer = {"", "Exit status: 0 ok, 2 usage, 3 not found, 4 Slurm command failed,"
                + " 5 Slurm unavailable, 6 timeout, 7-9 a health check failed, 70 internal error, 77 not privileged,"
                + " 78 invalid configuration; sweep: 10 acted, 11 held back by caps, 12 lock busy, 13 an action failed;"
                + " plugin: 1 auto_resume.so will not load."})
public final class AutoresumeCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "a subcommand is required");
    }
}
