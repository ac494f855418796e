package org.slurmautoresume.cli;

import org.slurmautoresume.nodeops.admin.NodeOperation;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "reboot",
        mixinStandardHelpOptions = true,
        description = "Reboot nodes once their jobs end, then return them to service:"
                + " scontrol reboot ASAP nextstate=RESUME reason=Action:Reboot NODES.")
final class NodeRebootCommand extends NodeChangeCommand {

    @Option(names = "--force", description = "Also reboot a node that is mid-replacement.")
    boolean force;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Added after Action:Reboot.")
    String reason;

    NodeRebootCommand(CliContext context) {
        super(context);
    }

    @Override
    NodeOperation operation() {
        return NodeOperation.REBOOT;
    }

    @Override
    boolean force() {
        return force;
    }

    @Override
    String detail() {
        return reason;
    }
}
