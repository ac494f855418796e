package org.slurmautoresume.cli;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
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
        footer = {
            "",
            "Exit status: 0 ok, 2 usage, 3 not found, 4 Slurm command failed,"
                    + " 5 Slurm unavailable, 6 timeout, 7-9 a health check failed, 70 internal error, 77 not privileged,"
                    + " 78 invalid configuration; sweep: 10 acted, 11 held back by caps, 12 lock busy, 13 an action failed;"
                    + " plugin: 1 auto_resume.so will not load."
        })
public final class AutoresumeCommand implements Runnable {

    /**
     * The subcommands, in the order --help lists them. Registered by {@link CliFactory}, only the
     * one a command line names where it names one: building a command's model loads its classes
     * (and what their fields hold: Jackson, the agent's, the sweep's), and a command that starts
     * on every node or in every task pays only for its own.
     */
    static final Map<String, Class<?>> SUBCOMMANDS;

    /*
     * Named here, not read from each class's @Command: reading thirteen annotations costs a start
     * about 50 ms of reflection (a unit test checks that the names match).
     */
    static {
        Map<String, Class<?>> byName = new LinkedHashMap<>();
        byName.put("supervise", SuperviseCommand.class);
        byName.put("env", EnvCommand.class);
        byName.put("nodes", NodesCommand.class);
        byName.put("job", JobCommand.class);
        byName.put("agent", AgentCommand.class);
        byName.put("agent-call", AgentCallCommand.class);
        byName.put("node", NodeCommand.class);
        byName.put("sweep", SweepCommand.class);
        byName.put("health", HealthCommand.class);
        byName.put("config", ConfigCommand.class);
        byName.put("lifecycle", LifecycleCommand.class);
        byName.put("history", HistoryCommand.class);
        byName.put("plugin", PluginCommand.class);
        SUBCOMMANDS = Collections.unmodifiableMap(byName);
    }

    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "a subcommand is required");
    }
}
