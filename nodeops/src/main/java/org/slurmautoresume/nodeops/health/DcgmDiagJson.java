package org.slurmautoresume.nodeops.health;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads what {@code dcgmi diag -r N -j} prints: a JSON document, after an optional line of
 * prose ({@code Successfully ran diagnostic for group.}). Two shapes exist:
 * <ul>
 *   <li>DCGM 3.x: {@code {"DCGM GPU Diagnostic": {"test_categories": [{"category", "tests":
 *       [{"name", "results": [{"gpu_ids": "0", "status": "Pass", "warnings": [...]}]}]}]}}}</li>
 *   <li>DCGM 4.x: the same under {@code "DCGM Diagnostic"}, each result naming its
 *       {@code entity_group} and {@code entity_id}, each warning an object
 *       ({@code {"warning": text, "error_id": n, ...}}) where 3.x had strings or such objects.</li>
 * </ul>
 * A test's verdict is its worst result's: one GPU failing fails the test. A status word this
 * reader does not know is {@code Unknown}, never a pass.
 */
public final class DcgmDiagJson {

    /** One diagnostic test: its name, the verdict (Pass, Fail, Warn, Skip, Unknown) and the warnings, GPU by GPU. */
    public record DiagTest(String category, String name, String verdict, List<String> messages) {

        public boolean failed() {
            return verdict.equals("Fail");
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Worst first: the verdict of a test is the first of these any of its results has. */
    private static final List<String> SEVERITY = List.of("Fail", "Unknown", "Warn", "Pass", "Skip");

    private DcgmDiagJson() {}

    /** The tests of the document in {@code output}; empty when it holds none (no JSON, an error text). */
    public static List<DiagTest> parse(String output) {
        int open = output.indexOf('{');
        int close = output.lastIndexOf('}');
        if (open < 0 || close < open) {
            return List.of();
        }
        JsonNode root;
        try {
            root = JSON.readTree(output.substring(open, close + 1));
        } catch (JsonProcessingException e) {
            return List.of();
        }
        JsonNode diagnostic =
                root.has("DCGM GPU Diagnostic") ? root.get("DCGM GPU Diagnostic") : root.path("DCGM Diagnostic");
        List<DiagTest> tests = new ArrayList<>();
        for (JsonNode category : diagnostic.path("test_categories")) {
            for (JsonNode test : category.path("tests")) {
                tests.add(test(category.path("category").asText(""), test));
            }
        }
        return tests;
    }

    private static DiagTest test(String category, JsonNode test) {
        String verdict = null;
        List<String> messages = new ArrayList<>();
        for (JsonNode result : test.path("results")) {
            String status = status(result.path("status").asText(""));
            if (verdict == null || SEVERITY.indexOf(status) < SEVERITY.indexOf(verdict)) {
                verdict = status;
            }
            String gpu = gpu(result);
            for (JsonNode warning : result.path("warnings")) {
                String text = warning.isTextual()
                        ? warning.asText()
                        : warning.path("warning").asText("");
                if (!text.isBlank()) {
                    messages.add((gpu.isEmpty() ? "" : "GPU " + gpu + ": ") + text.strip());
                }
            }
        }
        return new DiagTest(category, test.path("name").asText(""), verdict == null ? "Skip" : verdict, messages);
    }

    /** Which GPUs a result is about: 3.x {@code gpu_ids} (a string, a list for the deployment tests), 4.x {@code entity_id}. */
    private static String gpu(JsonNode result) {
        if (result.has("gpu_ids")) {
            return result.get("gpu_ids").asText("");
        }
        if (result.has("gpu_id")) {
            return result.get("gpu_id").asText("");
        }
        if (result.has("entity_id")
                && "GPU".equalsIgnoreCase(result.path("entity_group").asText("GPU"))) {
            return result.get("entity_id").asText("");
        }
        return "";
    }

    private static String status(String word) {
        return switch (word.strip().toLowerCase(Locale.ROOT)) {
            case "pass" -> "Pass";
            case "fail" -> "Fail";
            case "warn", "warning" -> "Warn";
            case "skip", "skipped", "not run" -> "Skip";
            default -> "Unknown";
        };
    }
}
