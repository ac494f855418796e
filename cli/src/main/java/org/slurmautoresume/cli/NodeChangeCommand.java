package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slurmautoresume.nodeops.admin.NodeAdmin;
import org.slurmautoresume.nodeops.admin.NodeOperation;
import org.slurmautoresume.nodeops.admin.NodeOutcome;
import org.slurmautoresume.nodeops.admin.NodeTarget;
import org.slurmautoresume.nodeops.admin.NodeUpdater;
import org.slurmautoresume.nodeops.admin.Privilege;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * What replace, reboot and resume share: read the nodes and their jobs, refuse a node
 * mid-replacement unless forced, show the plan, confirm a change that kills jobs, apply, report.
 */
abstract class NodeChangeCommand implements Callable<Integer> {

    private final CliContext context;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NODES", description = "Hostlist expression, e.g. node[1-4,7].")
    String nodes;

    @Option(names = "--dry-run", description = "Show what would be done and change nothing.")
    boolean dryRun;

    @Option(names = "--json", description = "Print the plan and the outcome as JSON with stable field names.")
    boolean json;

    NodeChangeCommand(CliContext context) {
        this.context = context;
    }

    abstract NodeOperation operation();

    abstract boolean force();

    /** Added to the action reason; null for none. */
    String detail() {
        return null;
    }

    /** Whether the person already confirmed on the command line. */
    boolean confirmed() {
        return false;
    }

    @Override
    public Integer call() {
        for (String name : Hostlist.expand(nodes)) {
            if (!Hostlist.isValidHostname(name)) {
                throw new CliException(ExitCode.USAGE, "not a valid node name in " + nodes + ": \"" + name + "\"");
            }
        }
        NodeAdmin admin = new NodeAdmin(context.slurm(), new NodeUpdater(context.runner()));
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!dryRun) {
            Privilege.Check privilege = admin.privilege(context.caller());
            if (!privilege.allowed()) {
                throw new CliException(ExitCode.PERMISSION_DENIED, privilege.message());
            }
            if (!privilege.message().isEmpty()) {
                err.println("autoresume: warning: " + privilege.message());
            }
        }
        NodeAdmin.Proposal proposal = admin.propose(operation(), nodes, force(), detail());
        if (!json) {
            printProposal(out, proposal);
        }
        if (dryRun) {
            if (json) {
                out.println(Json.write(document(proposal, List.of())));
            }
            out.flush();
            return proposal.targets().stream().allMatch(NodeTarget::willChange)
                    ? ExitCode.OK.code()
                    : ExitCode.FAILED.code();
        }
        if (proposal.killsJobs() && !confirmed()) {
            out.flush();
            confirmKilling(proposal.affectedJobs().size());
        }
        List<NodeOutcome> outcomes = admin.apply(proposal);
        if (json) {
            out.println(Json.write(document(proposal, outcomes)));
        } else {
            for (NodeOutcome outcome : outcomes) {
                out.println(outcome.node() + ": " + outcome.result()
                        + (outcome.command().isEmpty() ? "" : " (" + outcome.command() + ")")
                        + (outcome.message().isEmpty() ? "" : ": " + outcome.message()));
            }
        }
        out.flush();
        return exitCode(outcomes).code();
    }

    private void confirmKilling(int jobs) {
        Optional<String> answer = context.prompt().ask("Set DOWN now and kill " + jobs + " job(s)? [y/N] ");
        if (answer.isEmpty()) {
            throw new CliException(
                    ExitCode.FAILED,
                    "refusing to kill " + jobs + " job(s) without confirmation:"
                            + " standard input is not a terminal; pass --yes to confirm. Nothing was changed.");
        }
        String word = answer.get().strip().toLowerCase(Locale.ROOT);
        if (!word.equals("y") && !word.equals("yes")) {
            throw new CliException(ExitCode.FAILED, "not confirmed; nothing was changed");
        }
    }

    static ExitCode exitCode(List<NodeOutcome> outcomes) {
        if (outcomes.stream().anyMatch(o -> o.result().equals(NodeOutcome.DENIED))) {
            return ExitCode.PERMISSION_DENIED;
        }
        if (outcomes.stream().anyMatch(o -> o.result().equals(NodeOutcome.FAILED))) {
            return ExitCode.SLURM_FAILED;
        }
        // Ignored: scontrol succeeded but Slurm left the node as it was (a reboot it skipped).
        if (outcomes.stream()
                .anyMatch(o ->
                        o.result().equals(NodeOutcome.REFUSED) || o.result().equals(NodeOutcome.IGNORED))) {
            return ExitCode.FAILED;
        }
        return ExitCode.OK;
    }

    private void printProposal(PrintWriter out, NodeAdmin.Proposal proposal) {
        String change = switch (proposal.operation()) {
            case REPLACE -> "state=" + (proposal.force() ? "down" : "fail") + " reason=" + proposal.reason();
            case REBOOT -> "reboot when idle, then resume (reason=" + proposal.reason() + ")";
            case RESUME -> "state=resume";
        };
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"NODE", "STATE", "PLAN"});
        for (NodeTarget target : proposal.targets()) {
            rows.add(new String[] {
                target.node().name(),
                target.node().state().display(),
                target.refusal().map(r -> "left alone: " + r).orElse(change)
            });
        }
        Table.print(out, rows);
        List<Job> jobs = proposal.affectedJobs();
        if (!jobs.isEmpty()) {
            out.println(
                    proposal.killsJobs()
                            ? "These jobs will be KILLED (the nodes are set DOWN at once):"
                            : proposal.operation() == NodeOperation.REPLACE
                                    ? "These jobs run on the nodes; Slurm lets them finish before the replacement:"
                                    : "These jobs run on the nodes:");
            for (Job job : jobs) {
                out.println("  " + job.jobId() + " " + job.name() + " (user " + job.userName() + ", " + job.state()
                        + ", nodes " + job.nodeList() + ")");
            }
        }
    }

    private Map<String, Object> document(NodeAdmin.Proposal proposal, List<NodeOutcome> outcomes) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("operation", proposal.operation().word());
        doc.put("force", proposal.force());
        doc.put("dryRun", dryRun);
        doc.put("reason", proposal.reason());
        List<Map<String, Object>> targets = new ArrayList<>();
        for (NodeTarget target : proposal.targets()) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("node", target.node().name());
            t.put("state", target.node().state().display());
            t.put("refusal", target.refusal().orElse(null));
            t.put("jobs", target.jobs().stream().map(Job::jobId).toList());
            targets.add(t);
        }
        doc.put("nodes", targets);
        doc.put("affectedJobs", proposal.affectedJobs().stream().map(Job::jobId).toList());
        doc.put("killsJobs", proposal.killsJobs());
        doc.put("outcomes", outcomes);
        return doc;
    }
}
