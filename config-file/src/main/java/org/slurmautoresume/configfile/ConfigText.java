package org.slurmautoresume.configfile;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Reads a configuration file into a tree, or says where and why it cannot. A key given twice is
 * refused (which of the two was meant cannot be known), as is anything after the document.
 */
public final class ConfigText {

    /** The longest parser message kept: it may quote the file. */
    private static final int MAX_REASON = 300;

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    private static final ObjectMapper YAML = YAMLMapper.builder(
                    YAMLFactory.builder().build())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    /** The two languages; YAML is what people write by hand, JSON what programs write. */
    public enum Format {
        JSON,
        YAML;

        /** By the name's extension ({@code .json}; {@code .yaml}, {@code .yml}), else {@code fallback}. */
        public static Format of(String name, Format fallback) {
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.endsWith(".json")) {
                return JSON;
            }
            if (lower.endsWith(".yaml") || lower.endsWith(".yml")) {
                return YAML;
            }
            return fallback;
        }
    }

    private ConfigText() {}

    /**
     * The file's tree ({@link MissingNode} for a file with nothing in it), or empty after
     * reporting why at the document's root.
     */
    public static Optional<JsonNode> read(Path file, Format format, Problems problems) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            problems.error(problems.root(), "the file does not exist", "give the right path, or create the file");
            return Optional.empty();
        } catch (IOException e) {
            problems.error(problems.root(), "cannot read: " + e.getMessage(), "check the file's permissions");
            return Optional.empty();
        }
        return parse(text, format, problems);
    }

    /** As {@link #read}, for text that is not in a file (stdin, tests). */
    public static Optional<JsonNode> parse(String text, Format format, Problems problems) {
        try {
            JsonNode tree = (format == Format.JSON ? JSON : YAML).readTree(text);
            return Optional.of(tree == null ? MissingNode.getInstance() : tree);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            problems.error(
                    problems.root(),
                    "not valid " + format + where + ": " + reason(e),
                    "fix the syntax" + where + " (a missing comma, quote, bracket or indentation is the usual cause)");
            return Optional.empty();
        }
    }

    /**
     * The parser's reason on one line. SnakeYAML spreads it over several, with indented echoes of
     * the file and a caret under the column: the line and column already say where, and an echo
     * would copy whatever the file holds into the report, so only the unindented lines are kept.
     */
    private static String reason(JsonProcessingException e) {
        String original = String.valueOf(e.getOriginalMessage());
        String joined = original.lines()
                .filter(line -> !line.isBlank() && !Character.isWhitespace(line.charAt(0)))
                .map(String::strip)
                .collect(Collectors.joining("; "));
        String shown = joined.length() > MAX_REASON ? joined.substring(0, MAX_REASON) + "..." : joined;
        return Quote.escape(shown);
    }
}
