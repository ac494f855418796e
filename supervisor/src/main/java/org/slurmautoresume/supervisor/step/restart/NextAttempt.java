package org.slurmautoresume.supervisor.step.restart;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.slurm.env.JobEnvironment;

/**
 * What an attempt inherits from the ones before it: where it runs, what it is told of its nodes,
 * and how its srun is started. The first attempt's comes from the allocation; a re-run in place
 * keeps it; a repair returns a new one. Immutable: the attempt loop holds the current one.
 *
 * @param spares    the in-job spares plan, made once before the first attempt; empty without spares
 * @param stepNodes with in-job spares, the nodes the attempt runs on (srun's --nodelist), in the
 *                  supervisor's order; empty without spares
 * @param variables NODE_LIST, MASTER_NODE, MASTER_ADDR, NNODES and, after a repair, Slurm's own
 *                  job variables for the repaired job: put over the supervisor's environment
 * @param overlap   whether srun must share the failed step's CPUs ({@code --overlap}): the failed
 *                  step is still on record on the surviving nodes
 * @param faultyBefore nodes found faulty by earlier attempts of this step: never a step node again,
 *                  even where one stays in the job (a batch host whose GPU failed cannot leave it)
 */
public record NextAttempt(
        Optional<InJobSpares> spares,
        List<String> stepNodes,
        Map<String, String> variables,
        boolean overlap,
        List<String> faultyBefore) {

    public NextAttempt {
        stepNodes = List.copyOf(stepNodes);
        variables = Map.copyOf(variables);
        faultyBefore = List.copyOf(faultyBefore);
    }

    /** Before the first attempt: the spares plan's nodes, and the variables of the nodes the allocation names. */
    public static NextAttempt first(Optional<InJobSpares> spares, Map<String, String> variables) {
        return new NextAttempt(
                spares, spares.map(InJobSpares::stepNodes).orElse(List.of()), variables, false, List.of());
    }

    /** The nodes no attempt may run on after {@code faulty} failed this one: those and the earlier ones. */
    List<String> faultyWith(List<String> faulty) {
        List<String> all = new ArrayList<>(faultyBefore);
        faulty.stream().filter(n -> !all.contains(n)).forEach(all::add);
        return List.copyOf(all);
    }

    /** With in-job spares, the nodes the attempt must run on (srun's --nodelist); empty without. */
    public Optional<List<String>> placedOn() {
        return spares.isPresent() ? Optional.of(stepNodes) : Optional.empty();
    }

    /**
     * After the job was repaired by growing it back: the repaired job's variables, Slurm's own
     * ({@code slurm}) over the step's ({@code step}), published whole; {@code faulty} join the
     * nodes never run on again.
     */
    NextAttempt repaired(Map<String, String> step, Map<String, String> slurm, boolean overlap, List<String> faulty) {
        Map<String, String> all = new HashMap<>(step);
        all.putAll(slurm);
        return new NextAttempt(spares, stepNodes, all, overlap, faultyWith(faulty));
    }

    /**
     * After a fault in a step with in-job spares: the step moves to {@code nodes}, told of them by
     * {@code step}'s variables, while Slurm's size variables stay those of the {@code whole} job
     * (srun checks them against the allocation); {@code faulty} join the nodes never run on again.
     */
    NextAttempt movedTo(
            List<String> nodes, JobEnvironment step, JobEnvironment whole, boolean overlap, List<String> faulty) {
        Map<String, String> all = new HashMap<>(step.variables());
        all.putAll(whole.slurmVariables());
        return new NextAttempt(spares, nodes, all, overlap, faultyWith(faulty));
    }
}
