package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slurmautoresume.supervisor.config.ConfigLoader;
import org.slurmautoresume.supervisor.config.ConfigRenderer;
import org.slurmautoresume.supervisor.config.ConfigResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "show",
        mixinStandardHelpOptions = true,
        description = {
            "Print the configuration a job gets: the site file overridden by the job's file, every default"
                    + " spelled out. The output is itself a valid configuration file.",
            "The files read are listed on stderr."
        })
final class ConfigShowCommand implements Callable<Integer> {

    private final CliContext context;

    @Spec
    private CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", description = "The job's file (default: $AUTORESUME_CONFIG).")
    private Path jobFile;

    @Option(
            names = "--site-config",
            paramLabel = "FILE",
            description = "The site file (default:" + " $AUTORESUME_SITE_CONFIG, else " + ConfigLoader.DEFAULT_SITE
                    + " when it exists).")
    private Path siteFile;

    @Option(names = "--json", description = "Print JSON: files, the effective config, warnings.")
    private boolean json;

    ConfigShowCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        ConfigResult result = ConfigLoader.load(ConfigLoader.sources(
                Optional.ofNullable(siteFile), Optional.ofNullable(jobFile), context.environment()));
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (json) {
            Map<String, Object> doc = ConfigReport.json(result);
            doc.put("config", result.config().map(ConfigRenderer::toMap).orElse(null));
            out.println(Json.write(doc));
        } else {
            err.println(
                    result.files().isEmpty()
                            ? "# no configuration files: defaults"
                            : "# read "
                                    + String.join(
                                            ", ",
                                            result.files().stream()
                                                    .map(Path::toString)
                                                    .toList()));
            ConfigReport.printProblems(err, result);
            result.config().map(ConfigRenderer::yaml).ifPresent(out::print);
        }
        out.flush();
        err.flush();
        return ConfigReport.exitCode(result);
    }
}
