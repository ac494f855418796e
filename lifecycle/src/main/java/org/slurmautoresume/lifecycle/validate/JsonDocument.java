package org.slurmautoresume.lifecycle.validate;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/** Reads a JSON file into a tree, or says where and why it is not JSON. */
final class JsonDocument {

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private JsonDocument() {
    }

    /** The tree, or empty after adding the reason to {@code problems}. */
    static Optional<JsonNode> read(Path path, Problems problems) {
        String text;
        try {
            text = Files.readString(path, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            problems.error("$", "the file does not exist: " + path, "give the right path, or create the file");
            return Optional.empty();
        } catch (IOException e) {
            problems.error("$", "cannot read " + path + ": " + e.getMessage(), "check the file's permissions");
            return Optional.empty();
        }
        return parse(text, problems);
    }

    static Optional<JsonNode> parse(String text, Problems problems) {
        if (text.isBlank()) {
            problems.error("$", "the file is empty", "write the JSON object this file should hold");
            return Optional.empty();
        }
        try {
            return Optional.of(MAPPER.readTree(text));
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            problems.error("$", "not valid JSON" + where + ": " + e.getOriginalMessage(),
                    "fix the syntax" + where + " (a missing comma, quote or bracket is the usual cause)");
            return Optional.empty();
        }
    }
}
