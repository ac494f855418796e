package org.slurmautoresume.supervisor.step.restart;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.SlurmConfig;
import org.slurmautoresume.slurm.model.SlurmVersion;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;

/**
 * What a job can count on after a node fault, decided once from the job and the cluster before
 * any fault: in-job spares, job expansion (a spare pool, or the failed nodes back under their
 * names), and as the last resort a requeue. Slurm itself refuses expansion in cases that can be
 * read up front (docs/slurm-behaviour.md); trying it anyway costs time, leaves a donor job on
 * record and the job one node short, and ends in the requeue it could have started with.
 *
 * @param noExpansion why job expansion cannot work for this job; empty when it may
 */
public record RecoveryPaths(Optional<String> noExpansion) {

    /** Before the job was read: nothing is ruled out. */
    static final RecoveryPaths UNKNOWN = new RecoveryPaths(Optional.empty());

    /** 25.05 refuses to expand a job whose licenses are OR'd ({@code a|b}). */
    static final SlurmVersion FIRST_REFUSING_OR_LICENSES = new SlurmVersion(25, 5, 0);

    static RecoveryPaths of(SlurmConfig config, Job job) {
        return new RecoveryPaths(whyNoExpansion(config, job));
    }

    /**
     * Why Slurm would refuse to grow this job, checked in the order an administrator can act on:
     * the switch, then what the job or the cluster holds that the merge refuses.
     */
    public static Optional<String> whyNoExpansion(SlurmConfig config, Job job) {
        if (!config.listContains("SchedulerParameters", "permit_job_expansion")) {
            return Optional.of("SchedulerParameters has no permit_job_expansion");
        }
        Optional<String> gres = gres(job);
        if (gres.isPresent()) {
            return Optional.of("job " + job.jobId() + " holds GRES (" + gres.get() + "), and Slurm's select/cons_tres"
                    + " refuses to merge a job with allocated GRES");
        }
        // X11 forwarding turns Contain on by itself.
        if (config.listContains("PrologFlags", "Contain") || config.listContains("PrologFlags", "X11")) {
            return Optional.of(
                    "PrologFlags=" + config.get("PrologFlags").orElse("").strip() + " gives every allocation"
                            + " an extern step, and Slurm refuses to merge an allocation that has steps");
        }
        String licenses = job.licenses();
        if (licenses.contains("|")
                && release(config)
                        .filter(r -> r.atLeast(FIRST_REFUSING_OR_LICENSES))
                        .isPresent()) {
            return Optional.of("job " + job.jobId() + " asks for either of several licenses (" + licenses.strip()
                    + "), and Slurm 25.05 and later refuse to expand such a job");
        }
        return Optional.empty();
    }

    /** The job's GRES as written: 22.05 {@code gres:gpu:2}, 24.11 {@code gres/gpu:2}. */
    private static Optional<String> gres(Job job) {
        Job.TresPer per = job.tresPer();
        for (String value : List.of(per.node(), per.job(), per.task(), per.socket())) {
            if (value.toLowerCase(Locale.ROOT).startsWith("gres")) {
                return Optional.of(value);
            }
        }
        for (String part : job.tres().split(",")) {
            if (part.strip().startsWith("gres/")) {
                return Optional.of(part.strip());
            }
        }
        return Optional.empty();
    }

    private static Optional<SlurmVersion> release(SlurmConfig config) {
        try {
            return config.get("SLURM_VERSION").map(v -> SlurmVersion.parse(v.strip()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * Why no repair can work for these failed nodes, known without trying; empty when one may.
     * With in-job spares a repair needs a spare the job still holds, or else expansion; without,
     * a configured replacement needs expansion.
     *
     * @param jobNodesNow the job's nodes as Slurm holds them now (read only when needed)
     */
    Optional<String> noRepairFor(
            Optional<InJobSpares> spares,
            List<String> stepNodes,
            List<String> failed,
            boolean replacementConfigured,
            Supplier<List<String>> jobNodesNow) {
        if (noExpansion.isEmpty()) {
            return Optional.empty();
        }
        if (spares.isPresent()) {
            try {
                if (InJobSpares.replace(stepNodes, failed, jobNodesNow.get()).isPresent()) {
                    return Optional.empty();
                }
            } catch (RuntimeException e) {
                return Optional.empty(); // unread: let the repair try, as it always did
            }
            return Optional.of("no in-job spare is left, and job expansion cannot work (" + noExpansion.get() + ")");
        }
        return replacementConfigured
                ? Optional.of("job expansion cannot work (" + noExpansion.get() + ")")
                : Optional.empty();
    }

    /** The one line that says, at the start, what this step has to fall back on. */
    String describe(Optional<InJobSpares> spares, boolean replacementConfigured, NodeFaultRequeue.Verdict requeue) {
        List<String> parts = new ArrayList<>();
        parts.add(
                spares.map(s -> "in-job spare" + (s.spares().size() == 1 ? " " : "s ") + Hostlist.compress(s.spares()))
                        .orElse("no in-job spare (ask the job for more nodes than the step's -N to have some)"));
        if (replacementConfigured || spares.isPresent()) {
            parts.add(noExpansion
                    .map(why -> "no job expansion: " + why)
                    .orElse("job expansion"
                            + (replacementConfigured ? "" : " (no replacement configured beyond the spares)")));
        }
        parts.add(requeue.requeue() ? "then requeue: " + requeue.why() : "no requeue: " + requeue.why());
        return String.join("; ", parts);
    }

    /** The same, for the job's timeline: words a program can compare. */
    String[] details(Optional<InJobSpares> spares, boolean replacementConfigured, NodeFaultRequeue.Verdict requeue) {
        String expansion = noExpansion.isPresent()
                ? "impossible"
                : replacementConfigured || spares.isPresent() ? "possible" : "unused";
        return new String[] {
            "spares",
            spares.map(s -> Hostlist.compress(s.spares())).orElse(""),
            "expansion",
            expansion,
            "noExpansion",
            noExpansion.orElse(""),
            "requeue",
            Boolean.toString(requeue.requeue())
        };
    }

    /** {@code details} and whether the node's agent answered: {@code agent=answers|absent}. */
    static String[] withAgent(String[] details, Optional<String> agentAway) {
        String[] all = java.util.Arrays.copyOf(details, details.length + 2);
        all[details.length] = "agent";
        all[details.length + 1] = agentAway.isPresent() ? "absent" : "answers";
        return all;
    }

    /**
     * Fail-open: without an agent the step runs all the same, and what the agent would have done
     * (mark a faulty node, confirm a silent one) is left to Slurm's own verdicts. The user is told
     * here, in the line said once per job.
     */
    static String agentPart(Optional<String> agentAway) {
        return agentPart(agentAway, false);
    }

    /**
     * As {@link #agentPart(Optional)}; {@code socketThere}: an agent's socket exists but nothing
     * answers on it, so the agent may be restarting and recovery's requests wait for it a while.
     */
    static String agentPart(Optional<String> agentAway, boolean socketThere) {
        return agentAway
                .map(why -> (socketThere
                                ? "; the agent does not answer now (" + why + "): recovery waits" + " for it a while ("
                                        + SupervisorSettings.AGENT_OUTAGE + "), and without it"
                                : "; no agent: " + why + ", so")
                        + " faulty nodes are not marked and only Slurm's own verdicts count")
                .orElse("");
    }
}
