package org.slurmautoresume.supervisor.step;

import java.util.ArrayList;
import java.util.List;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.SlurmConfig;
import org.slurmautoresume.supervisor.step.restart.RecoveryPaths;

/**
 * Checks, once per job, the settings a resume relies on. It never stops the step: it says what
 * would not work and what to change, so nothing fails silently.
 */
public final class Preflight {

    public List<PreflightFinding> check(SlurmConfig config, Job job) {
        List<PreflightFinding> findings = new ArrayList<>();
        if (!config.listContains("SchedulerParameters", "permit_job_expansion")) {
            findings.add(new PreflightFinding(
                    "SchedulerParameters",
                    "permit_job_expansion is not set, so the job cannot be grown back to its size after a node"
                            + " is replaced",
                    "add permit_job_expansion to SchedulerParameters in slurm.conf and run `scontrol reconfigure`"));
        }
        if (config.get("JobRequeue").map(v -> v.strip().equals("0")).orElse(false) && !job.requeue()) {
            findings.add(new PreflightFinding(
                    "JobRequeue",
                    "the job cannot be requeued, so when a step cannot be re-run the last resort is to give up",
                    "submit with `sbatch --requeue` or set JobRequeue=1 in slurm.conf"));
        }
        if (config.keepsNoAccounting()) {
            findings.add(new PreflightFinding(
                    "AccountingStorageType",
                    "without accounting (accounting_storage/none) Slurm 22.05 refuses every change to a job once it"
                            + " has been grown (\"the DB index is being set\" forever), so a job can be repaired"
                            + " by expansion only once; a second node fault ends the step",
                    "run slurmdbd and set AccountingStorageType=accounting_storage/slurmdbd"));
        }
        String overSubscribe = job.overSubscribe();
        if (!overSubscribe.isEmpty() && !overSubscribe.equalsIgnoreCase("NO")) {
            findings.add(new PreflightFinding(
                    "exclusive allocation",
                    "job " + job.jobId() + " shares its nodes (OverSubscribe=" + overSubscribe + "), so a replacement"
                            + " node may not offer the same resources",
                    "submit with `sbatch --exclusive` (or `salloc --exclusive`)"));
        }
        // Where Slurm refuses to grow the job, a node fault is repaired by in-job spares or not at all.
        RecoveryPaths.whyNoExpansion(config, job)
                .filter(why -> !why.contains("permit_job_expansion"))
                .ifPresent(why -> findings.add(new PreflightFinding(
                        why.startsWith("PrologFlags") ? "PrologFlags" : why.contains("GRES") ? "GRES" : "Licenses",
                        "the job cannot be grown back after a node fault: " + why + "; without an in-job spare it is"
                                + " requeued (if requeueable) instead of repaired",
                        "give the job spare nodes of its own: sbatch -N more than the supervised srun's -N"
                                + " (docs/in-job-spares.md)")));
        return findings;
    }
}
