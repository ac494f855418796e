package org.slurmautoresume.supervisor.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Reads one configuration file, YAML or JSON (by its name), into a tree, or says why it cannot. */
final class ConfigReader {

    private static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder().build())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private ConfigReader() {
    }

    /** The file's tree; on failure a MissingNode and the reason added to {@code problems}. */
    static JsonNode read(Path file, List<ConfigProblem> problems) {
        String name = file.toString();
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            problems.add(new ConfigProblem(name, "", "no such file", true));
            return MissingNode.getInstance();
        } catch (IOException e) {
            problems.add(new ConfigProblem(name, "", "cannot read: " + e.getMessage(), true));
            return MissingNode.getInstance();
        }
        return parse(name, text, problems);
    }

    static JsonNode parse(String name, String text, List<ConfigProblem> problems) {
        ObjectMapper mapper = name.toLowerCase(Locale.ROOT).endsWith(".json") ? JSON : YAML;
        try {
            JsonNode tree = mapper.readTree(text);
            return tree == null ? MissingNode.getInstance() : tree;
        } catch (JsonProcessingException e) {
            JsonLocation where = e.getLocation();
            String at = where == null ? "" : "line " + where.getLineNr() + ", column " + where.getColumnNr() + ": ";
            problems.add(new ConfigProblem(name, "", "not valid " + (mapper == JSON ? "JSON" : "YAML") + ": " + at
                    + e.getOriginalMessage(), true));
            return MissingNode.getInstance();
        }
    }
}
