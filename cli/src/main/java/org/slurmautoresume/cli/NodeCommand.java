package org.slurmautoresume.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
        name = "node",
        mixinStandardHelpOptions = true,
        description = {
            "Replace, reboot or resume nodes; show those in replacement or reboot, and those that fail too often.",
            "NODES is a Slurm hostlist expression such as node[1-4,7]. Changing nodes needs root or the"
                    + " SlurmUser (or a Slurm admin account)."
        },
        subcommands = {
            NodeReplaceCommand.class,
            NodeRebootCommand.class,
            NodeResumeCommand.class,
            NodeStatusCommand.class,
            NodeLemonsCommand.class
        },
        footer = {
            "",
            "Exit status: 0 every node changed, 1 a node was refused (mid-replacement, nothing to do)"
                    + " or the confirmation was declined, 2 usage, 3 no such node, 4 Slurm command failed,"
                    + " 77 not privileged."
        })
final class NodeCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(
                spec.commandLine(), "a subcommand is required (replace, reboot, resume, status, lemons)");
    }
}
