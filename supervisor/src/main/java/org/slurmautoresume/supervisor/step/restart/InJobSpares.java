package org.slurmautoresume.supervisor.step.restart;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.slurmautoresume.supervisor.step.settings.Allocation;

/**
 * In-job spares: the job holds more nodes than its supervised step asks for ({@code sbatch -N 3}
 * around {@code srun --auto-resume=1 -N 2}), so after a node fault the step can run again at
 * once on the survivors plus a node the job already has: no scheduler and no job expansion in
 * the path, which is what makes recovery work for GPU (GRES) jobs and under PrologFlags=Contain.
 *
 * <p>Decided from srun's argv and the allocation's variables alone, before the first srun starts: the
 * supervisor must pick the step's nodes itself (the first srun gets {@code --nodelist}) so that
 * the spares stay idle, and reading the job from slurmctld there would delay every start.
 *
 * @param stepSize  the step's node count, srun's {@code -N}
 * @param jobNodes  the job's nodes in Slurm's order when the step started
 * @param batchHost where the batch script (and this supervisor) runs; always a step node
 * @param stepNodes the nodes the first attempt runs on, in the job's order
 */
public record InJobSpares(int stepSize, List<String> jobNodes, String batchHost, List<String> stepNodes) {

    /** srun options that take no argument, or an optional one that must be attached ({@code --opt=value}). */
    private static final Set<String> LONG_WITHOUT_ARGUMENT = Set.of(
            "help",
            "usage",
            "version",
            "verbose",
            "quiet",
            "label",
            "unbuffered",
            "overlap",
            "exclusive",
            "no-kill",
            "kill-on-bad-exit",
            "immediate",
            "hold",
            "overcommit",
            "oversubscribe",
            "disable-status",
            "pty",
            "multi-prog",
            "contiguous",
            "exact",
            "spread-job",
            "test-only",
            "no-allocate",
            "preserve-env",
            "propagate",
            "x11",
            "bcast",
            "compress",
            "send-libs",
            "auto-resume",
            "use-min-nodes",
            "whole",
            "quit-on-interrupt",
            "resv-ports",
            "jobid-only",
            "reboot",
            "container-mount-home",
            "no-container-mount-home",
            "container-remap-root",
            "no-container-remap-root",
            "container-entrypoint",
            "no-container-entrypoint",
            "container-writable",
            "container-readonly");
    /** srun's short options that take an argument (srun's getopt string); the others take none or an attached one. */
    private static final String SHORT_WITH_ARGUMENT = "ABbcCdDeGiJLmMnNopqRSTtUwWx";
    /** Options by which the user places the step on nodes: then the supervisor does not. */
    private static final Set<String> USER_PLACEMENT =
            Set.of("w", "nodelist", "x", "exclude", "F", "nodefile", "r", "relative");

    public InJobSpares {
        jobNodes = List.copyOf(jobNodes);
        stepNodes = List.copyOf(stepNodes);
    }

    /** The nodes the job holds beyond the step's, at the start. */
    public List<String> spares() {
        return jobNodes.stream().filter(n -> !stepNodes.contains(n)).toList();
    }

    /**
     * The spares plan for this srun: present when srun asks for an exact node count N with
     * {@code -N}/{@code --nodes}, does not place the step itself (-w, -x, --nodefile, -r), and
     * the job holds more than N nodes. Empty means: supervise as without spares.
     */
    public static Optional<InJobSpares> plan(List<String> srunArgv, Allocation allocation) {
        OptionalInt n = exactNodeCount(srunArgv);
        if (n.isEmpty()) {
            return Optional.empty();
        }
        if (allocation.jobNodes().isEmpty()) {
            return Optional.empty(); // a stale or hand-made environment: not a basis for placing the step
        }
        List<String> jobNodes = allocation.jobNodes().get().hosts();
        if (n.getAsInt() < 1 || n.getAsInt() >= jobNodes.size()) {
            return Optional.empty();
        }
        // The batch script runs on SLURMD_NODENAME; under salloc there is none, and Slurm's own
        // default puts the batch host first.
        String host = allocation.batchHost();
        String batchHost = jobNodes.contains(host) ? host : jobNodes.get(0);
        return Optional.of(
                new InJobSpares(n.getAsInt(), jobNodes, batchHost, firstStepNodes(jobNodes, batchHost, n.getAsInt())));
    }

    /**
     * The first {@code n} of the job's nodes in Slurm's order, the batch host always among them
     * (in the last place's stead when it is not): the batch host cannot leave the job, and while
     * it lives the step might as well use it.
     */
    static List<String> firstStepNodes(List<String> jobNodes, String batchHost, int n) {
        List<String> picked = new ArrayList<>(jobNodes.subList(0, n));
        if (!picked.contains(batchHost)) {
            picked.set(n - 1, batchHost);
            picked.sort((a, b) -> Integer.compare(jobNodes.indexOf(a), jobNodes.indexOf(b)));
        }
        return picked;
    }

    /**
     * The step's next nodes after {@code failed} left it: the survivors keep their places and
     * each failed node's place goes to the first node of the job (in Slurm's order) that is not
     * already a step node. Empty when the job no longer holds enough nodes.
     */
    static Optional<List<String>> replace(List<String> stepNodes, Collection<String> failed, List<String> jobNodesNow) {
        List<String> free = new ArrayList<>();
        for (String node : jobNodesNow) {
            if (!failed.contains(node) && (!stepNodes.contains(node))) {
                free.add(node);
            }
        }
        List<String> next = new ArrayList<>(stepNodes.size());
        for (String node : stepNodes) {
            if (!failed.contains(node) && jobNodesNow.contains(node)) {
                next.add(node);
            } else if (free.isEmpty()) {
                return Optional.empty();
            } else {
                next.add(free.remove(0));
            }
        }
        return Optional.of(List.copyOf(next));
    }

    /**
     * The exact node count srun's own options ask for; empty when there is none, it is a range
     * ({@code 2-3}), or the user placed the step on nodes. Only srun's options are read: they end
     * at the first word that is neither an option nor an option's argument (the command).
     */
    static OptionalInt exactNodeCount(List<String> srunArgv) {
        String nodes = null;
        for (int i = 1; i < srunArgv.size(); i++) {
            String word = srunArgv.get(i);
            if (word.equals("--") || !word.startsWith("-") || word.equals("-")) {
                break;
            }
            if (word.startsWith("--")) {
                int eq = word.indexOf('=');
                String name = word.substring(2, eq < 0 ? word.length() : eq);
                String value = null;
                if (eq >= 0) {
                    value = word.substring(eq + 1);
                } else if (!LONG_WITHOUT_ARGUMENT.contains(name) && i + 1 < srunArgv.size()) {
                    value = srunArgv.get(++i);
                }
                if (USER_PLACEMENT.contains(name)) {
                    return OptionalInt.empty();
                }
                if (name.equals("nodes")) {
                    nodes = value;
                }
                continue;
            }
            // Short options, possibly bundled (-lN2): an option that takes an argument ends the bundle.
            for (int c = 1; c < word.length(); c++) {
                char option = word.charAt(c);
                if (USER_PLACEMENT.contains(String.valueOf(option))) {
                    return OptionalInt.empty();
                }
                if (SHORT_WITH_ARGUMENT.indexOf(option) < 0) {
                    continue;
                }
                String value = c + 1 < word.length()
                        ? word.substring(c + 1)
                        : i + 1 < srunArgv.size() ? srunArgv.get(++i) : null;
                if (option == 'N') {
                    nodes = value;
                }
                break;
            }
        }
        if (nodes == null || !nodes.matches("[0-9]{1,6}")) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(Integer.parseInt(nodes));
    }
}
