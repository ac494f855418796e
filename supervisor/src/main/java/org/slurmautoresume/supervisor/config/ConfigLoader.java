package org.slurmautoresume.supervisor.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slurmautoresume.configfile.ConfigPath;
import org.slurmautoresume.configfile.ConfigProblem;
import org.slurmautoresume.configfile.ConfigText;
import org.slurmautoresume.configfile.ConfigText.Format;
import org.slurmautoresume.configfile.Problems;

/**
 * Finds, reads, checks and merges a job's configuration. Precedence, most general first:
 * the site file ({@code --site-config}, else {@code $AUTORESUME_SITE_CONFIG}, else
 * {@value #DEFAULT_SITE} when it exists), then the job's file ({@code --config}, else
 * {@code $AUTORESUME_CONFIG}). The job's file wins field by field; see {@link ConfigMerger}.
 */
public final class ConfigLoader {

    public static final String DEFAULT_SITE = "/etc/autoresume/config.yaml";
    public static final String SITE_ENV = "AUTORESUME_SITE_CONFIG";
    public static final String JOB_ENV = "AUTORESUME_CONFIG";

    private ConfigLoader() {}

    /** The files a job's configuration comes from; an option beats its environment variable. */
    public static List<ConfigSource> sources(
            Optional<Path> siteOption, Optional<Path> jobOption, Map<String, String> environment) {
        return ConfigSource.of(siteOption, jobOption, environment);
    }

    /** Reads the sources (skipping an optional one that does not exist) and merges them in order. */
    public static ConfigResult load(List<ConfigSource> sources) {
        List<Path> files = sources.stream()
                .filter(s -> s.required() || Files.exists(s.path()))
                .map(ConfigSource::path)
                .toList();
        return check(files);
    }

    /**
     * Checks each file on its own, then the files merged in the order given (each over the ones
     * before it) as one configuration. No files: the defaults.
     */
    public static ConfigResult check(List<Path> files) {
        List<ConfigProblem> problems = new ArrayList<>();
        List<JsonNode> trees = new ArrayList<>();
        for (Path file : files) {
            Problems inFile = new Problems(file.toString(), ConfigPath.root(), problems);
            JsonNode tree =
                    ConfigText.read(file, format(file.toString()), inFile).orElse(MissingNode.getInstance());
            ConfigValidator.checkFile(tree, inFile);
            trees.add(tree);
        }
        return combine(files, trees, problems);
    }

    /** As {@link #check}, for text that is not in a file (tests, stdin); {@code name} stands in for the file. */
    public static ConfigResult checkText(String name, String text) {
        List<ConfigProblem> problems = new ArrayList<>();
        Problems inText = new Problems(name, ConfigPath.root(), problems);
        JsonNode tree = ConfigText.parse(text, format(name), inText).orElse(MissingNode.getInstance());
        ConfigValidator.checkFile(tree, inText);
        return combine(List.of(Path.of(name)), List.of(tree), problems);
    }

    /** JSON when the name says so; anything else is YAML, which people write by hand. */
    private static Format format(String name) {
        return Format.of(name, Format.YAML);
    }

    private static ConfigResult combine(List<Path> files, List<JsonNode> trees, List<ConfigProblem> problems) {
        if (problems.stream().anyMatch(ConfigProblem::isError)) {
            return new ConfigResult(files, Optional.empty(), problems);
        }
        JsonNode merged = MissingNode.getInstance();
        for (JsonNode tree : trees) {
            merged = ConfigMerger.merge(merged, tree);
        }
        String label = files.stream().map(Path::toString).collect(Collectors.joining(" + "));
        Problems inMerge = new Problems(label.isEmpty() ? "(defaults)" : label, ConfigPath.root(), problems);
        AutoresumeConfig config = ConfigValidator.build(merged, inMerge, ruleOrigins(files, trees));
        return new ConfigResult(files, Optional.ofNullable(config), problems);
    }

    /** For each rule name, the file(s) that mention it: a problem with the rule names those. */
    private static Map<String, String> ruleOrigins(List<Path> files, List<JsonNode> trees) {
        Map<String, List<String>> origins = new LinkedHashMap<>();
        for (int i = 0; i < trees.size(); i++) {
            JsonNode rules = trees.get(i).path("runPolicy").path(RuleSection.FIELD);
            for (JsonNode rule : rules) {
                JsonNode name = rule.get("name");
                if (name != null && name.isTextual()) {
                    origins.computeIfAbsent(name.asText(), k -> new ArrayList<>())
                            .add(files.get(i).toString());
                }
            }
        }
        Map<String, String> labels = new LinkedHashMap<>();
        origins.forEach((name, where) -> labels.put(name, String.join(" + ", where)));
        return labels;
    }
}
