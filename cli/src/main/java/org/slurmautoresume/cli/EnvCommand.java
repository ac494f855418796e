package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slurmautoresume.slurm.env.JobEnvironment;
import org.slurmautoresume.slurm.env.JobEnvironmentResolver;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.exec.ShellQuote;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "env",
        mixinStandardHelpOptions = true,
        description = {
            "Print the job's current node list and master as shell exports or JSON.",
            "Values come from `scontrol show job`, never from $SLURM_JOB_NODELIST, which goes stale"
                + " when the job shrinks or is grown back after a node is replaced.",
            "",
            "  eval \"$(autoresume env)\"            # NODE_LIST MASTER_NODE MASTER_ADDR NNODES",
            "  eval \"$(autoresume env --slurm-vars)\" # also SLURM_JOB_NODELIST, SLURM_NNODES, ..."
        })
final class EnvCommand implements Runnable {

    enum Format { sh, json }

    private final CliContext context;

    @Spec
    private CommandSpec spec;

    @Option(names = "--job", paramLabel = "ID", description = "Job id (default: $SLURM_JOB_ID).")
    private String jobId;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "sh",
            description = "sh (export lines, safe for eval) or json. Default: ${DEFAULT-VALUE}.")
    private Format format;

    @Option(names = "--slurm-vars", description = "Also export SLURM_JOB_NODELIST, SLURM_NODELIST,"
            + " SLURM_JOB_NUM_NODES and SLURM_NNODES for the job's current size, so a later srun in a"
            + " shrunk or regrown job starts.")
    private boolean slurmVars;

    EnvCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public void run() {
        JobId id = JobIdOption.resolve(jobId, context);
        JobEnvironment env = new JobEnvironmentResolver(context.slurm()).resolve(id);
        Map<String, String> vars = new LinkedHashMap<>(env.variables());
        if (slurmVars) {
            vars.putAll(env.slurmVariables());
        }
        PrintWriter out = spec.commandLine().getOut();
        if (format == Format.json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("jobId", env.jobId());
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
