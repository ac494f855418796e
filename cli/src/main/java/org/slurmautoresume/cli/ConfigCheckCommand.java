package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.slurmautoresume.supervisor.config.ConfigLoader;
import org.slurmautoresume.supervisor.config.ConfigResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
        name = "check",
        mixinStandardHelpOptions = true,
        description = {
            "Check configuration files: each on its own, then all of them merged in the order given"
                    + " (later files override earlier ones, as a job's file overrides the site's).",
            "Prints every problem with its file and field, or \"ok\". Exit 0 when usable, 78 when not."
        })
final class ConfigCheckCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "YAML (.yaml, .yml) or JSON (.json) files.")
    private List<Path> files;

    @Option(names = "--json", description = "Print JSON: ok, files, errors and warnings (file, path, message).")
    private boolean json;

    @Override
    public Integer call() {
        ConfigResult result = ConfigLoader.check(files);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.write(ConfigReport.json(result)));
        } else {
            ConfigReport.printProblems(out, result);
            if (result.ok()) {
                out.println("ok");
            }
        }
        out.flush();
        return ConfigReport.exitCode(result);
    }
}
