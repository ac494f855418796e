package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.slurm.env.JobEnvironment;
import org.slurmautoresume.slurm.env.JobEnvironmentResolver;
import org.slurmautoresume.slurm.env.StepNodes;
import org.slurmautoresume.slurm.exec.ShellQuote;
import org.slurmautoresume.slurm.model.JobId;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "env",
        mixinStandardHelpOptions = true,
        description = {
            "Print the node list, master and node count a training script sizes itself by, as shell"
                    + " exports or JSON.",
            "Inside a task of a job step (what srun starts, on every attempt of an `srun --auto-resume`"
                    + " step) they describe that step: the nodes this attempt runs on, from the variables"
                    + " srun gave the task. With in-job spares the step runs on fewer nodes than the job"
                    + " holds, and NNODES counts the step's nodes, not the idle spares.",
            "Elsewhere (a batch script, an salloc shell, --job) they describe the job as"
                    + " `scontrol show job` has it now, never $SLURM_JOB_NODELIST, which goes stale when"
                    + " the job shrinks or is grown back after a node is replaced.",
            "",
            "  eval \"$(autoresume env)\"            # NODE_LIST MASTER_NODE MASTER_ADDR NNODES",
            "  eval \"$(autoresume env --slurm-vars)\" # also SLURM_JOB_NODELIST, SLURM_NNODES, ..."
        })
final class EnvCommand implements Runnable {

    enum Format {
        sh,
        json
    }

    enum Scope {
        auto,
        step,
        job
    }

    private final CliContext context;

    @Spec
    private CommandSpec spec;

    @Option(names = "--job", paramLabel = "ID", description = "Job id (default: $SLURM_JOB_ID).")
    private String jobId;

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            defaultValue = "sh",
            description = "sh (export lines, safe for eval) or json. Default: ${DEFAULT-VALUE}.")
    private Format format;

    @Option(
            names = "--scope",
            paramLabel = "SCOPE",
            defaultValue = "auto",
            description = "auto (the step when run inside a task of one of the job's steps, else the"
                    + " job), step (fails outside a step's task) or job (the whole allocation, spares"
                    + " included). Default: ${DEFAULT-VALUE}.")
    private Scope scope;

    @Option(
            names = "--slurm-vars",
            description = "Also export SLURM_JOB_NODELIST, SLURM_NODELIST,"
                    + " SLURM_JOB_NUM_NODES and SLURM_NNODES for the job's current size, so a later srun in a"
                    + " shrunk or regrown job starts. These describe the job in every scope: srun checks"
                    + " them against the job's allocation.")
    private boolean slurmVars;

    EnvCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public void run() {
        JobId id = JobIdOption.resolve(jobId, context);
        JobEnvironmentResolver resolver = new JobEnvironmentResolver(context.slurm());
        Optional<StepNodes> step =
                scope == Scope.job ? Optional.empty() : StepNodes.ofTask(context.environment(), id.toString());
        if (scope == Scope.step && step.isEmpty()) {
            throw new CliException(
                    ExitCode.USAGE,
                    "--scope step: this process is no task of a step of job " + id
                            + " (SLURM_STEP_ID, SLURM_STEP_NODELIST and SLURM_STEP_NUM_NODES are set by srun in"
                            + " each task it starts, and must agree)");
        }
        JobEnvironment env =
                step.isPresent() ? resolver.resolveStep(step.get(), context.environment()) : resolver.resolve(id);
        Map<String, String> vars = new LinkedHashMap<>(env.variables());
        if (slurmVars) {
            vars.putAll((step.isPresent() ? resolver.resolve(id) : env).slurmVariables());
        }
        PrintWriter out = spec.commandLine().getOut();
        if (format == Format.json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("jobId", env.jobId());
            doc.put("scope", step.isPresent() ? "step" : "job");
            doc.put("hosts", env.hosts());
            doc.put("variables", vars);
            out.println(Json.write(doc));
        } else {
            for (Map.Entry<String, String> var : vars.entrySet()) {
                out.println("export " + var.getKey() + "=" + ShellQuote.quote(var.getValue()));
            }
        }
        out.flush();
    }
}
