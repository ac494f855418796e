package org.slurmautoresume.configfile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ConfigPathTest {

    @Test
    void fieldsAreJoinedByDotsAndIndicesBracketed() {
        ConfigPath path = ConfigPath.root()
                .field("runPolicy")
                .field("logMonitoringConfiguration")
                .index(2)
                .field("name");
        assertEquals("runPolicy.logMonitoringConfiguration[2].name", path.toString());
        assertFalse(path.isRoot());
    }

    @Test
    void aMarkedRootPrefixesEveryPath() {
        ConfigPath root = ConfigPath.root("$");
        assertEquals("$", root.toString());
        assertTrue(root.isRoot());
        assertEquals(
                "$.worker_groups[0].autoresume.spare_count",
                root.field("worker_groups")
                        .index(0)
                        .field("autoresume")
                        .field("spare_count")
                        .toString());
    }

    @Test
    void theUnmarkedRootIsEmptyAndAListAtTheTopStartsWithItsIndex() {
        assertEquals("", ConfigPath.root().toString());
        assertEquals("[3].x", ConfigPath.root().index(3).field("x").toString());
    }

    @Test
    void keysThatAreNotPlainNamesAreQuotedInBrackets() {
        ConfigPath root = ConfigPath.root();
        assertEquals("a[\"b.c\"]", root.field("a").field("b.c").toString());
        assertEquals("[\"two words\"].x", root.field("two words").field("x").toString());
        assertEquals("a[\"line\\nbreak\"]", root.field("a").field("line\nbreak").toString());
        assertEquals("a[\"\"]", root.field("a").field("").toString());
        assertEquals(
                "snake_case.kebab-case.x1",
                root.field("snake_case").field("kebab-case").field("x1").toString());
    }

    @Test
    void aHugeKeyIsCutShort() {
        String path = ConfigPath.root().field("k".repeat(10_000)).toString();
        assertTrue(path.length() < 120, path);
        assertTrue(path.endsWith("(10000 characters)]"), path);
    }

    @Test
    void pathsAreValues() {
        assertEquals(
                ConfigPath.root().field("a").index(1),
                ConfigPath.root().field("a").index(1));
        assertNotEquals(ConfigPath.root().field("a"), ConfigPath.root("$").field("a"));
    }
}
