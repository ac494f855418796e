package org.slurmautoresume.cli;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slurmautoresume.configfile.ConfigProblem;
import org.slurmautoresume.lifecycle.validate.ConfigValidator;
import org.slurmautoresume.lifecycle.validate.ValidationReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "validate",
        mixinStandardHelpOptions = true,
        description = {
            "Check the lifecycle JSON files, alone and against each other, and report every problem"
                    + " at once with its file, field and fix.",
            "Before creating a cluster: --provisioning and --cluster-request; on a node: --provisioning and"
                    + " --resource-config. Exit status 78 when there is an error; warnings alone exit 0."
        })
final class LifecycleValidateCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--provisioning",
            required = true,
            paramLabel = "FILE",
            description = "provisioning_parameters.json")
    private Path provisioning;

    @Option(
            names = "--resource-config",
            paramLabel = "FILE",
            description = "resource_config.json (the platform writes it)")
    private Path resourceConfig;

    @Option(
            names = "--cluster-request",
            paramLabel = "FILE",
            description = "the cluster-creation request (create_cluster.json)")
    private Path clusterRequest;

    @Option(
            names = "--json",
            description = "Print {\"ok\", \"errors\", \"warnings\", \"problems\": [...]} instead of text.")
    private boolean json;

    @Override
    public Integer call() {
        if (resourceConfig == null && clusterRequest == null) {
            throw new CliException(
                    ExitCode.USAGE,
                    "give --resource-config, --cluster-request or both to check" + " --provisioning against");
        }
        ValidationReport report = ConfigValidator.validate(
                provisioning, Optional.ofNullable(resourceConfig), Optional.ofNullable(clusterRequest));
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Map<String, Object> view = new LinkedHashMap<>();
            view.put("ok", report.ok());
            view.put("errors", report.errors().size());
            view.put("warnings", report.warnings().size());
            view.put("problems", json(report.problems()));
            out.println(Json.write(view));
        } else {
            for (ConfigProblem problem : report.problems()) {
                out.println((problem.isError() ? "error" : "warning") + ": " + problem.file() + ": " + problem.path()
                        + ": " + problem.message());
                out.println("    fix: " + problem.fix());
            }
            out.println(
                    report.ok()
                            ? "ok: no errors, " + report.warnings().size() + " warning(s)"
                            : report.errors().size() + " error(s), "
                                    + report.warnings().size() + " warning(s)");
        }
        out.flush();
        return report.ok() ? ExitCode.OK.code() : ExitCode.CONFIG_INVALID.code();
    }

    /** The field names and order scripts read since this command first had --json. */
    @JsonPropertyOrder({"severity", "file", "field", "message", "fix"})
    record ProblemView(String severity, String file, String field, String message, String fix) {}

    private static List<ProblemView> json(List<ConfigProblem> problems) {
        return problems.stream()
                .map(p -> new ProblemView(p.severity().name(), p.file(), p.path(), p.message(), p.fix()))
                .toList();
    }
}
