package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slurmautoresume.configfile.ConfigProblem;
import org.slurmautoresume.supervisor.config.ConfigResult;

/** How both config commands print problems: one per line, or as JSON with stable field names. */
final class ConfigReport {

    private ConfigReport() {}

    static void printProblems(PrintWriter out, ConfigResult result) {
        for (ConfigProblem problem : result.problems()) {
            out.println(problem);
        }
    }

    static Map<String, Object> json(ConfigResult result) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("ok", result.ok());
        doc.put("files", result.files().stream().map(Path::toString).toList());
        doc.put("errors", problems(result.errors()));
        doc.put("warnings", problems(result.warnings()));
        return doc;
    }

    private static List<Map<String, Object>> problems(List<ConfigProblem> problems) {
        return problems.stream()
                .map(p -> {
                    Map<String, Object> fields = new LinkedHashMap<>();
                    fields.put("file", p.file());
                    fields.put("path", p.path());
                    fields.put("message", p.message());
                    return fields;
                })
                .toList();
    }

    static int exitCode(ConfigResult result) {
        return result.ok() ? ExitCode.OK.code() : ExitCode.CONFIG_INVALID.code();
    }
}
