package org.slurmautoresume.agent.server;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.parse.Fixtures;

/**
 * A mocked {@link CommandRunner} that answers scontrol with recorded 22.05 output: a job per id,
 * a node record per name (a real capture, renamed where the capture was of another node), and
 * exit 0 for every {@code scontrol update}, which it records.
 */
final class FakeSlurm {

    static final String V22 = "slurm-22.05";

    final CommandRunner runner = mock(CommandRunner.class);
    final List<List<String>> updates = new ArrayList<>();
    private final Map<String, String> jobs = new HashMap<>();
    private final Map<String, String> nodes = new HashMap<>();
    private final Map<String, String> afterUpdate = new HashMap<>();
    /** What {@code sacctmgr show event} prints: no event unless a test gives some. */
    private String events = "";

    private boolean accountingDown;
    /** Every {@code sacctmgr} argv run, in order. */
    final List<List<String>> eventQueries = new ArrayList<>();

    FakeSlurm() {
        when(runner.run(any())).thenAnswer(invocation -> answer(invocation.getArgument(0)));
    }

    /** {@code fixture}'s job record, with its NodeList replaced when {@code nodeList} is not null. */
    FakeSlurm job(String jobId, String fixture, String nodeList) {
        String text = Fixtures.read(V22, fixture);
        if (nodeList != null) {
            text = text.replaceFirst(
                    " NodeList=\\S+",
                    " NodeList=" + nodeList.replace("[", "\\[").replace("]", "\\]"));
        }
        jobs.put(jobId, text);
        return this;
    }

    String jobText(String jobId) {
        return jobs.get(jobId);
    }

    FakeSlurm jobText(String jobId, String text) {
        jobs.put(jobId, text);
        return this;
    }

    /** {@code fixture}'s node record under the name {@code node}. */
    FakeSlurm node(String node, String fixture) {
        nodes.put(node, Fixtures.read(V22, fixture).replaceFirst("^NodeName=\\S+", "NodeName=" + node));
        return this;
    }

    /** A node record as text, to be edited and put back with {@link #nodeText(String, String)}. */
    String nodeText(String node) {
        return nodes.get(node);
    }

    FakeSlurm nodeText(String node, String text) {
        nodes.put(node, text);
        return this;
    }

    /**
     * The record {@code node} has once an {@code scontrol update} or {@code scontrol reboot} of
     * it ran: what Slurm would then show.
     */
    FakeSlurm afterUpdate(String node, String fixture) {
        return afterUpdateText(node, Fixtures.read(V22, fixture).replaceFirst("^NodeName=\\S+", "NodeName=" + node));
    }

    FakeSlurm afterUpdateText(String node, String text) {
        afterUpdate.put(node, text);
        return this;
    }

    /** The node events accounting holds, as {@code sacctmgr -n -P show event} prints them. */
    FakeSlurm events(String text) {
        this.events = text;
        return this;
    }

    /** sacctmgr fails, as without slurmdbd. */
    FakeSlurm accountingDown() {
        this.accountingDown = true;
        return this;
    }

    private CommandResult answer(CommandRequest request) {
        List<String> argv = request.argv();
        if (argv.get(0).endsWith("sacctmgr")) {
            eventQueries.add(argv);
            return accountingDown
                    ? result(request, 1, "", "sacctmgr: error: Problem talking to the database: Connection refused\n")
                    : result(request, 0, events, "");
        }
        if (argv.contains("--version")) {
            return result(request, 0, "slurm-wlm 22.05.8\n", "");
        }
        if (argv.size() == 5 && argv.subList(0, 4).equals(List.of("scontrol", "-o", "show", "job"))) {
            String job = jobs.get(argv.get(4));
            return job != null
                    ? result(request, 0, job, "")
                    : result(request, 1, "", Fixtures.read(V22, "show-job-invalid-id.stderr.txt"));
        }
        if (argv.equals(List.of("scontrol", "-o", "show", "job"))) {
            return result(request, 0, String.join("", jobs.values()), "");
        }
        if (argv.size() == 5 && argv.subList(0, 4).equals(List.of("scontrol", "-o", "show", "node"))) {
            String node = nodes.get(argv.get(4));
            return node != null
                    ? result(request, 0, node, "")
                    : result(request, 1, "Node " + argv.get(4) + " not found\n", "");
        }
        if (argv.get(0).endsWith("squeue") && argv.contains("-w")) {
            return result(request, 0, idsOn(argv.get(argv.indexOf("-w") + 1)), "");
        }
        if (argv.size() > 2 && (argv.get(1).equals("update") || argv.get(1).equals("reboot"))) {
            updates.add(argv);
            List<String> changed = argv.get(1).equals("reboot")
                    ? Hostlist.expand(argv.get(argv.size() - 1))
                    : argv.stream()
                            .filter(a -> a.startsWith("nodename="))
                            .map(a -> a.substring("nodename=".length()))
                            .toList();
            changed.stream()
                    .filter(afterUpdate::containsKey)
                    .toList()
                    .forEach(n -> nodes.put(n, afterUpdate.remove(n)));
            return result(request, 0, "", "");
        }
        throw new AssertionError("unexpected command " + argv);
    }

    /** What {@code squeue -h -a -w NODE -t <active states> -o %A} prints: one job id a line. */
    private String idsOn(String node) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, String> job : jobs.entrySet()) {
            java.util.regex.Matcher nodes =
                    java.util.regex.Pattern.compile(" NodeList=(\\S+)").matcher(job.getValue());
            java.util.regex.Matcher state =
                    java.util.regex.Pattern.compile(" JobState=(\\S+)").matcher(job.getValue());
            if (nodes.find()
                    && state.find()
                    && !nodes.group(1).equals("(null)")
                    && Hostlist.expand(nodes.group(1)).contains(node)
                    && org.slurmautoresume.slurm.model.JobState.parse(state.group(1))
                            .isActive()) {
                out.append(job.getKey()).append('\n');
            }
        }
        return out.toString();
    }

    private static CommandResult result(CommandRequest request, int exit, String out, String err) {
        return new CommandResult(request, exit, out, err, false, Duration.ZERO);
    }
}
