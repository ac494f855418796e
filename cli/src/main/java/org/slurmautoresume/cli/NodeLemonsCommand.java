package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slurmautoresume.nodeops.lemon.FaultMark;
import org.slurmautoresume.nodeops.lemon.FaultMarks;
import org.slurmautoresume.nodeops.lemon.LemonList;
import org.slurmautoresume.nodeops.lemon.LemonRule;
import org.slurmautoresume.nodeops.sweep.SweepPolicyException;
import org.slurmautoresume.nodeops.sweep.SweepPolicyLoader;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Node;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
        name = "lemons",
        mixinStandardHelpOptions = true,
        description = {
            "Nodes the toolkit marked faulty too often (lemonMarks times within lemonWindowSeconds of the"
                    + " sweep's policy; default 3 in 7 days), with each mark: when, in which state, why, by whom,"
                    + " and the jobs Slurm's accounting shows on the node then.",
            "The sweep, and the agent asked by a job to resume or reboot it (agent --lemon-policy), keep such"
                    + " a node out (reason 'autoresume: lemon: ...') instead of returning it, and"
                    + " nothing of the toolkit returns it. Once it is repaired, return it yourself:"
                    + " autoresume node resume NODE. Marks made before that are not counted again.",
            "Reads Slurm's accounting (sacctmgr show event, sacct): needs slurmdbd."
        })
final class NodeLemonsCommand implements Runnable {

    /** The stable JSON shape of one mark. */
    record MarkView(String time, String state, String reason, String user, List<String> jobs) {}

    /** The stable JSON shape of one node. */
    record NodeView(
            String node,
            String state,
            String reason,
            boolean held,
            String heldSince,
            int marksCounted,
            List<MarkView> marks,
            String returnWith) {}

    private final CliContext context;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "NODES", description = "Hostlist; default: every node.")
    private String nodes;

    @Option(
            names = "--policy",
            paramLabel = "FILE",
            description = "The sweep's policy file, for lemonMarks and lemonWindowSeconds; default: 3 in 7 days.")
    private Path policyFile;

    @Option(names = "--json", description = "Print a JSON object with stable field names.")
    private boolean json;

    NodeLemonsCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public void run() {
        LemonRule rule;
        try {
            rule = policyFile == null
                    ? LemonRule.DEFAULT
                    : SweepPolicyLoader.load(policyFile).lemon();
        } catch (SweepPolicyException e) {
            throw new CliException(ExitCode.USAGE, e.getMessage(), e);
        }
        SlurmClient slurm = context.slurm();
        List<Node> listed = nodes == null ? slurm.nodes() : slurm.nodes(nodes);
        LocalDateTime now = context.now();
        List<LemonList.Entry> entries = listed.isEmpty() || !rule.enabled()
                ? List.of()
                : LemonList.select(
                        listed,
                        FaultMarks.byNode(slurm.nodeEvents(
                                Hostlist.compress(
                                        listed.stream().map(Node::name).toList()),
                                LemonList.historySince(listed, rule, now))),
                        rule,
                        now);
        List<NodeView> views = new ArrayList<>();
        for (LemonList.Entry e : entries) {
            List<MarkView> marks = new ArrayList<>();
            for (FaultMark m : e.verdict().counted()) {
                marks.add(new MarkView(
                        at(m.time()),
                        m.state(),
                        m.reason(),
                        m.user(),
                        slurm.jobIdsOnNodeAt(e.node().name(), m.time())));
            }
            views.add(new NodeView(
                    e.node().name(),
                    e.node().state().display(),
                    e.node().reason().map(r -> r.text()).orElse(""),
                    e.held(),
                    e.heldSince().map(NodeLemonsCommand::at).orElse(null),
                    marks.size(),
                    marks,
                    "autoresume node resume " + e.node().name()));
        }
        print(rule, views);
    }

    /** As Slurm prints times, seconds always. */
    static String at(LocalDateTime time) {
        return time.format(SLURM_TIME);
    }

    private static final DateTimeFormatter SLURM_TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss");

    private void print(LemonRule rule, List<NodeView> views) {
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("lemonMarks", rule.marks());
            doc.put("lemonWindowSeconds", rule.window().toSeconds());
            doc.put("nodes", views);
            out.println(Json.write(doc));
        } else if (!rule.enabled()) {
            out.println("The lemon rule is off (lemonMarks: 0).");
        } else if (views.isEmpty()) {
            out.println("No node was marked faulty " + rule.describe() + ".");
        } else {
            for (NodeView v : views) {
                out.println(v.node() + " " + v.state() + (v.held() ? ", held since " + v.heldSince() : ", not held yet")
                        + ": " + v.marksCounted() + " fault marks (limit " + rule.describe() + ")");
                List<String[]> table = new ArrayList<>();
                table.add(new String[] {"  MARKED", "STATE", "BY", "JOBS", "REASON"});
                for (MarkView m : v.marks()) {
                    table.add(new String[] {
                        "  " + m.time(),
                        m.state(),
                        m.user(),
                        m.jobs().isEmpty() ? "-" : String.join(",", m.jobs()),
                        m.reason()
                    });
                }
                Table.print(out, table);
                out.println("  once repaired: " + v.returnWith());
            }
        }
        out.flush();
    }
}
