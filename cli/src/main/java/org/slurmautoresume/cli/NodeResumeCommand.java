package org.slurmautoresume.cli;

import org.slurmautoresume.nodeops.admin.NodeOperation;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "resume",
        mixinStandardHelpOptions = true,
        description = {
            "Return nodes to service: state=resume.",
            "A node marked Action:Replace that has not come back yet is left alone unless --force:"
                    + " changing it mid-replacement can break the replacement."
        })
final class NodeResumeCommand extends NodeChangeCommand {

    @Option(names = "--force", description = "Resume even a node that is mid-replacement.")
    boolean force;

    NodeResumeCommand(CliContext context) {
        super(context);
    }

    @Override
    NodeOperation operation() {
        return NodeOperation.RESUME;
    }

    @Override
    boolean force() {
        return force;
    }
}
