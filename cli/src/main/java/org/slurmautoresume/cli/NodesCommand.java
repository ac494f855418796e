package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.model.Node;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
        name = "nodes",
        mixinStandardHelpOptions = true,
        description = {
            "List nodes with their state, address and reason.",
            "HOSTLIST is a Slurm hostlist expression such as node[1-4,7]; default: every node."
        })
final class NodesCommand implements Runnable {

    private final CliContext context;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "HOSTLIST", description = "Nodes to show.")
    private String hostlist;

    @Option(
            names = "--state",
            paramLabel = "S[,S...]",
            split = ",",
            description = "Only nodes whose base state or a flag is one of these (e.g. down,fail,drain;"
                    + " 'not_responding' matches a trailing *).")
    private List<String> states = new ArrayList<>();

    @Option(
            names = "--not-state",
            paramLabel = "S[,S...]",
            split = ",",
            description = "Leave out nodes whose base state or a flag is one of these (same names as --state).")
    private List<String> excludedStates = new ArrayList<>();

    // Scripts wait on this (local-cluster.sh up) instead of keeping their own copy of which
    // states the scheduler will use.
    @Option(
            names = "--schedulable",
            arity = "0..1",
            fallbackValue = "true",
            paramLabel = "true|false",
            description = "Only nodes ready for new work (idle, mixed or allocated with no drain, fail, reboot,"
                    + " power-saving or not-responding flag); --schedulable=false: only the others.")
    private Boolean schedulable;

    @Option(names = "--json", description = "Print a JSON array with stable field names.")
    private boolean json;

    NodesCommand(CliContext context) {
        this.context = context;
    }

    /** {@code nodes --json}, as picocli would set it up, for {@link FastPath}. */
    static NodesCommand json(CliContext context) {
        NodesCommand command = new NodesCommand(context);
        command.json = true;
        return command;
    }

    @Override
    public void run() {
        run(spec.commandLine().getOut());
    }

    void run(PrintWriter out) {
        SlurmClient slurm = context.slurm();
        List<Node> nodes = hostlist == null ? slurm.nodes() : slurm.nodes(hostlist);
        // Loops, not streams: a stream pipeline's classes were a tenth of this command's start.
        List<Node> shown = new ArrayList<>();
        for (Node node : nodes) {
            if ((states.isEmpty() || hasAny(node, states))
                    && !hasAny(node, excludedStates)
                    && (schedulable == null || node.state().isSchedulable() == schedulable)) {
                shown.add(node);
            }
        }
        if (json) {
            List<NodeView> views = new ArrayList<>(shown.size());
            for (Node node : shown) {
                views.add(NodeView.of(node));
            }
            out.println(NodesJson.write(views));
        } else {
            printTable(out, shown);
        }
        out.flush();
    }

    private static boolean hasAny(Node node, List<String> wantedStates) {
        for (String wanted : wantedStates) {
            String w = wanted.strip().toUpperCase(Locale.ROOT);
            if (w.equals("NOT_RESPONDING")
                    ? node.state().notResponding()
                    : node.state().has(w)) {
                return true;
            }
        }
        return false;
    }

    private static void printTable(PrintWriter out, List<Node> nodes) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"NODE", "STATE", "ADDRESS", "PORT", "PARTITIONS", "REASON"});
        for (Node node : nodes) {
            rows.add(new String[] {
                node.name(),
                node.state().display(),
                node.address(),
                node.port().isPresent() ? Integer.toString(node.port().getAsInt()) : "-",
                node.partitions().isEmpty() ? "-" : String.join(",", node.partitions()),
                node.reason()
                        .map(r -> r.text()
                                + r.user()
                                        .map(u -> " [" + u + "@"
                                                + r.time().map(Object::toString).orElse("?") + "]")
                                        .orElse(""))
                        .orElse("")
            });
        }
        Table.print(out, rows);
    }
}
