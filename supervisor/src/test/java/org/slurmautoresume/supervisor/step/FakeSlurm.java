package org.slurmautoresume.supervisor.step;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slurmautoresume.slurm.client.OutputFormat;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.parse.Fixtures;

/**
 * The Slurm boundary for the supervisor's unit tests: a {@link CommandRunner} that answers
 * scontrol, scancel and salloc from a small model of one job on a few nodes, in Slurm 22.05's
 * words (the records are recorded 22.05 output with their values replaced), and applies the
 * writes (shrink, donor merge) to the model. Every command is recorded with the thread that ran it.
 */
public final class FakeSlurm implements CommandRunner {

    static final String V22 = "slurm-22.05";
    public static final String JOB = "42";
    private static final String DONOR = "99";

    /** A command as it was run, and on which thread. */
    public record Ran(List<String> argv, String thread) {}

    private final List<Ran> ran = new ArrayList<>();
    private final Map<String, String> nodeStates = new LinkedHashMap<>();
    private final List<String> jobNodes = new ArrayList<>();
    private final Map<String, String> steps = new LinkedHashMap<>();
    private final List<String> donorNodes = new ArrayList<>();
    private String jobState = "RUNNING";
    private boolean requeueable = true;
    private String extraJobFields = "";
    private String configOverride;
    private final Map<String, String> refusals = new LinkedHashMap<>();
    private final Map<String, Runnable> onScancel = new LinkedHashMap<>();
    private final Map<String, Map.Entry<Integer, String>> pendingStates = new LinkedHashMap<>();
    /** Whether every node answers on 127.0.0.1 (for real probes of local agents) instead of 10.0.0.N. */
    private boolean onLoopback;

    /** A job 42 on {@code jobNodes} (its batch host the first), the cluster's nodes {@code all}. */
    public FakeSlurm(List<String> jobNodes, List<String> all) {
        this.jobNodes.addAll(jobNodes);
        for (String node : all) {
            nodeStates.put(node, jobNodes.contains(node) ? "ALLOCATED" : "IDLE");
        }
    }

    public SlurmClient client() {
        return new SlurmClient(this, "scontrol", Duration.ofSeconds(5), OutputFormat.TEXT);
    }

    public synchronized void nodeState(String node, String state) {
        nodeStates.put(node, state);
    }

    public synchronized String nodeState(String node) {
        return nodeStates.get(node);
    }

    /** {@code node} keeps its state for {@code reads} more {@code show node} answers, then is {@code state}. */
    public synchronized void nodeStateAfterReads(String node, int reads, String state) {
        pendingStates.put(node, Map.entry(reads, state));
    }

    synchronized void jobState(String state) {
        jobState = state;
    }

    /** Requeue=1 (the default, as JobRequeue=1 gives) or Requeue=0 (sbatch --no-requeue). */
    /** Every node's NodeAddr 127.0.0.1, so probes reach agents a test runs on loopback (node N's slurmd port 1700N). */
    synchronized FakeSlurm onLoopback() {
        onLoopback = true;
        return this;
    }

    synchronized void requeueable(boolean requeue) {
        requeueable = requeue;
    }

    /** Fields the job record prints beyond the recorded 22.05 ones (e.g. a later release's). */
    synchronized void jobFields(String fields) {
        extraJobFields = fields;
    }

    /** scontrol show config answers with {@code text} instead of the recorded 22.05 configuration. */
    synchronized void config(String text) {
        configOverride = text;
    }

    /** Step {@code JOB.id} on {@code nodes}, created by the srun with pid {@code srunPid}. */
    public synchronized void step(String id, long srunPid, String nodes) {
        steps.put(
                id,
                "StepId=" + JOB + "." + id + " UserId=1001 StartTime=2026-11-22T04:14:22 TimeLimit=UNLIMITED"
                        + " State=RUNNING Partition=debug NodeList=" + nodes + " Nodes=" + Hostlist.count(nodes)
                        + " CPUs=4 Tasks=1 Name=train Network=(null) TRES=cpu=4,mem=0,node=1 ResvPorts=(null)"
                        + " CPUFreqReq=Default Dist=Cyclic SrunHost:Pid=vm:" + srunPid);
    }

    /** Commands naming {@code word} fail (exit 1) with {@code stderr}. */
    public synchronized void refuse(String word, String stderr) {
        refusals.put(word, stderr);
    }

    /** {@code scancel JOB.id} also runs {@code then} (srun ends when its step is cancelled). */
    public synchronized void onScancel(String id, Runnable then) {
        onScancel.put(id, then);
    }

    public synchronized String jobNodeList() {
        return Hostlist.compress(jobNodes);
    }

    public synchronized List<Ran> ran() {
        return List.copyOf(ran);
    }

    /** The argv of every command run whose argv contains {@code word}. */
    public synchronized List<List<String>> ran(String word) {
        return ran.stream().map(Ran::argv).filter(argv -> argv.contains(word)).toList();
    }

    @Override
    public synchronized CommandResult run(CommandRequest request) {
        List<String> argv = request.argv();
        ran.add(new Ran(argv, Thread.currentThread().getName()));
        for (Map.Entry<String, String> refusal : refusals.entrySet()) {
            if (argv.contains(refusal.getKey())) {
                return new CommandResult(request, 1, "", refusal.getValue(), false, Duration.ZERO);
            }
        }
        List<String> scontrol = argv.size() > 3 && argv.get(0).equals("env") ? argv.subList(3, argv.size()) : argv;
        if (scontrol.equals(List.of("scontrol", "-o", "show", "job", JOB))) {
            return ok(request, jobLine());
        }
        if (scontrol.equals(List.of("scontrol", "-o", "show", "step", JOB))) {
            return ok(
                    request,
                    steps.isEmpty() ? "No job steps in the system\n" : String.join("\n", steps.values()) + "\n");
        }
        if (scontrol.size() >= 4 && scontrol.subList(0, 4).equals(List.of("scontrol", "-o", "show", "node"))) {
            List<String> names =
                    scontrol.size() == 5 ? Hostlist.expand(scontrol.get(4)) : List.copyOf(nodeStates.keySet());
            StringBuilder out = new StringBuilder();
            for (String name : names) {
                out.append(nodeLine(name)).append('\n');
                countRead(name);
            }
            return ok(request, out.toString());
        }
        if (scontrol.equals(List.of("scontrol", "show", "config"))) {
            return ok(request, configOverride != null ? configOverride : Fixtures.read(V22, "show-config.txt"));
        }
        if (scontrol.size() == 4
                && scontrol.subList(0, 3).equals(List.of("scontrol", "update", "jobid=" + JOB))
                && scontrol.get(3).startsWith("NodeList=")) {
            List<String> keep = Hostlist.expand(scontrol.get(3).substring("NodeList=".length()));
            jobNodes.retainAll(keep);
            return ok(request, "");
        }
        if (scontrol.equals(List.of("scontrol", "update", "jobid=" + DONOR, "NumNodes=0"))) {
            jobNodes.addAll(donorNodes);
            jobNodes.sort(null);
            donorNodes.clear();
            return ok(request, "");
        }
        if (scontrol.equals(List.of("scontrol", "update", "jobid=" + DONOR, "TimeLimit=1"))) {
            return ok(request, ""); // the donor's record leaves slurmctld sooner; nothing here reads it
        }
        if (argv.get(0).equals("salloc") && argv.contains("--dependency=expand:" + JOB)) {
            donorNodes.addAll(Hostlist.expand(argv.get(argv.indexOf("-w") + 1)));
            return new CommandResult(
                    request, 0, "", "salloc: Granted job allocation " + DONOR + "\n", false, Duration.ZERO);
        }
        if (argv.get(0).equals("scancel")) {
            if (argv.get(1).startsWith(JOB + ".")) {
                String id = argv.get(1).substring(JOB.length() + 1);
                steps.remove(id);
                onScancel.getOrDefault(id, () -> {}).run();
            }
            return ok(request, "");
        }
        if (argv.equals(List.of("scontrol", "requeue", JOB))) {
            return ok(request, "");
        }
        return new CommandResult(request, 1, "", "FakeSlurm does not know " + argv + "\n", false, Duration.ZERO);
    }

    private void countRead(String node) {
        Map.Entry<Integer, String> pending = pendingStates.get(node);
        if (pending == null) {
            return;
        }
        if (pending.getKey() <= 1) {
            pendingStates.remove(node);
            nodeStates.put(node, pending.getValue());
        } else {
            pendingStates.put(node, Map.entry(pending.getKey() - 1, pending.getValue()));
        }
    }

    private String jobLine() {
        String nodes = Hostlist.compress(jobNodes);
        return Fixtures.read(V22, "show-job-running.txt")
                .replace("JobId=8 ", "JobId=" + JOB + " ")
                .replace("JobState=RUNNING", "JobState=" + jobState)
                .replace("Requeue=1 ", "Requeue=" + (requeueable ? 1 : 0) + " ")
                .replace(" Power=", extraJobFields.isEmpty() ? " Power=" : " " + extraJobFields + " Power=")
                .replace("NodeList=node1 ", "NodeList=" + nodes + " ")
                .replace("BatchHost=node1", "BatchHost=" + jobNodes.get(0))
                .replace("NumNodes=1 ", "NumNodes=" + jobNodes.size() + " ");
    }

    /** Node N answers on 10.0.0.N, so a new master is told by its address. */
    private String nodeLine(String name) {
        String number = name.replaceAll("\\D", "");
        return Fixtures.read(V22, "show-node-allocated.txt")
                .strip()
                .replace("NodeName=node4", "NodeName=" + name)
                .replace("NodeAddr=127.0.0.1", "NodeAddr=" + (onLoopback ? "127.0.0.1" : "10.0.0." + number))
                .replace("Port=17004", "Port=1700" + number)
                .replace("State=ALLOCATED", "State=" + nodeStates.getOrDefault(name, "IDLE"));
    }

    private static CommandResult ok(CommandRequest request, String stdout) {
        return new CommandResult(request, 0, stdout, "", false, Duration.ZERO);
    }
}
