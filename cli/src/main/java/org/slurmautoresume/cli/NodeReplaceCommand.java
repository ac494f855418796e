package org.slurmautoresume.cli;

import org.slurmautoresume.nodeops.admin.NodeOperation;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "replace",
        mixinStandardHelpOptions = true,
        description = {
            "Mark nodes for replacement: state=fail reason=Action:Replace. Slurm lets their jobs" + " finish first.",
            "With --force: state=down, which kills their jobs at once (the last resort for a node stuck in fail);"
                    + " the jobs are listed and you are asked unless --yes."
        })
final class NodeReplaceCommand extends NodeChangeCommand {

    @Option(names = "--force", description = "Set DOWN now (kills jobs); also acts on a node already mid-replacement.")
    boolean force;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Added after Action:Replace, e.g. \"xid 79\".")
    String reason;

    @Option(
            names = {"--yes", "-y"},
            description = "Do not ask before killing jobs.")
    boolean yes;

    NodeReplaceCommand(CliContext context) {
        super(context);
    }

    @Override
    NodeOperation operation() {
        return NodeOperation.REPLACE;
    }

    @Override
    boolean force() {
        return force;
    }

    @Override
    String detail() {
        return reason;
    }

    @Override
    boolean confirmed() {
        return yes;
    }
}
