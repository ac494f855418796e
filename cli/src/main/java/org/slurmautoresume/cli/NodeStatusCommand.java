package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import org.slurmautoresume.nodeops.admin.NodeAdmin;
import org.slurmautoresume.nodeops.admin.NodeStatus;
import org.slurmautoresume.nodeops.admin.NodeUpdater;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        description = {
            "Nodes in replacement or reboot: since when (the reason's time), the reason, and the phase:",
            "waiting-for-jobs, waiting-for-replacement, back-under-same-hostname, rebooting or marked."
        })
final class NodeStatusCommand implements Runnable {

    /** The stable JSON shape of one row. */
    record View(
            String node,
            String state,
            String phase,
            String since,
            String reason,
            String reasonUser,
            String slurmdStartTime) {
        static View of(NodeStatus s) {
            return new View(
                    s.node().name(),
                    s.node().state().display(),
                    s.phase().word(),
                    s.since().map(Object::toString).orElse(null),
                    s.reason(),
                    s.node().reason().flatMap(r -> r.user()).orElse(null),
                    s.node().slurmdStartTime().map(Object::toString).orElse(null));
        }
    }

    private final CliContext context;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "NODES", description = "Hostlist; default: every node.")
    private String nodes;

    @Option(names = "--json", description = "Print a JSON array with stable field names.")
    private boolean json;

    NodeStatusCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public void run() {
        List<View> rows = new NodeAdmin(context.slurm(), new NodeUpdater(context.runner()))
                .status(nodes).stream().map(View::of).toList();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.write(rows));
        } else if (rows.isEmpty()) {
            out.println("No node is in replacement or reboot.");
        } else {
            List<String[]> table = new ArrayList<>();
            table.add(new String[] {"NODE", "STATE", "PHASE", "SINCE", "REASON"});
            for (View v : rows) {
                table.add(
                        new String[] {v.node(), v.state(), v.phase(), v.since() == null ? "-" : v.since(), v.reason()});
            }
            Table.print(out, table);
        }
        out.flush();
    }
}
