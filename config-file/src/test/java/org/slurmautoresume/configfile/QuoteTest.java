package org.slurmautoresume.configfile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.junit.jupiter.api.Test;

class QuoteTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    @Test
    void controlCharactersQuotesAndBackslashesAreEscaped() {
        assertEquals("\"a\\nb\\r\\tc\\\"d\\\\e\\u001b[31m\\u2028\"", Quote.text("a\nb\r\tc\"d\\e\u001b[31m\u2028"));
    }

    @Test
    void aLongValueIsCutAndSaysHowLongItWas() {
        String quoted = Quote.text("x".repeat(10_240));
        assertEquals("\"" + "x".repeat(Quote.MAX_SHOWN) + "...\" (10240 characters)", quoted);
    }

    @Test
    void aCutNeverSplitsASurrogatePair() {
        String value = "x".repeat(Quote.MAX_SHOWN - 1) + "\uD83D\uDE00" + "tail";
        String quoted = Quote.text(value);
        assertFalse(quoted.contains("\uD83D\""), quoted);
        assertTrue(quoted.startsWith("\"" + "x".repeat(Quote.MAX_SHOWN - 1) + "...\""), quoted);
    }

    @Test
    void valuesAreDescribedByKind() {
        assertEquals("text \"6h\"", Quote.describe(NODES.textNode("6h")));
        assertEquals("number 1.5", Quote.describe(NODES.numberNode(1.5)));
        assertEquals("boolean true", Quote.describe(NODES.booleanNode(true)));
        assertEquals("a list", Quote.describe(NODES.arrayNode()));
        assertEquals("a mapping", Quote.describe(NODES.objectNode()));
        assertEquals("null", Quote.describe(NODES.nullNode()));
        assertEquals("nothing", Quote.describe(null));
    }

    @Test
    void aHugeNumberIsCutToo() {
        String described = Quote.describe(NODES.numberNode(new java.math.BigInteger("9".repeat(500))));
        assertTrue(described.endsWith("... (500 digits)"), described);
        assertTrue(described.length() < 100, described);
    }
}
