package org.slurmautoresume.configfile;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/**
 * Values quoted in messages: escaped, so a newline or a terminal escape in a file cannot forge
 * or hide lines of the report, and cut short, so a 10 kB string does not drown it.
 */
public final class Quote {

    /** Characters of a value shown before it is cut. */
    public static final int MAX_SHOWN = 60;

    private Quote() {}

    /** {@code "value"}, escaped as a JSON string; a longer one ends {@code ..." (N characters)}. */
    public static String text(String value) {
        if (value.length() <= MAX_SHOWN) {
            return "\"" + escape(value) + "\"";
        }
        int end = MAX_SHOWN;
        if (Character.isHighSurrogate(value.charAt(end - 1))) {
            end--;
        }
        return "\"" + escape(value.substring(0, end)) + "...\" (" + value.length() + " characters)";
    }

    /** Escapes quotes, backslashes and every control or line-separating character. */
    public static String escape(String value) {
        StringBuilder out = new StringBuilder(value.length() + 8);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    /** What a value is, for "expected X, found Y": {@code text "6h"}, {@code number 1.5}, {@code a list}. */
    public static String describe(JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return "nothing";
        }
        return switch (node.getNodeType()) {
            case STRING -> "text " + text(node.asText());
            case NUMBER -> "number " + cut(node.asText());
            case BOOLEAN -> "boolean " + node.asText();
            case ARRAY -> "a list";
            case OBJECT -> "a mapping";
            case NULL -> "null";
            default -> node.getNodeType().name().toLowerCase(Locale.ROOT);
        };
    }

    /** A number's digits can be as long as any string. */
    private static String cut(String digits) {
        return digits.length() <= MAX_SHOWN
                ? digits
                : digits.substring(0, MAX_SHOWN) + "... (" + digits.length() + " digits)";
    }
}
