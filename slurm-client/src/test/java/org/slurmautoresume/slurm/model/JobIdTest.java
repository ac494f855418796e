package org.slurmautoresume.slurm.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JobIdTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "1",
                "123",
                "123_4",
                "123_0",
                "123+1",
                "123+0",
                "4294967293",
                "4294967293_4000000",
                "67108863",
                "123+127"
            })
    void validIdsReadBackAsWritten(String text) {
        assertEquals(text, JobId.parse(text).toString());
        assertTrue(JobId.isValid(text));
    }

    @Test
    void formsAreTold() {
        JobId array = JobId.parse("123_4");
        assertEquals(123, array.jobNumber());
        assertEquals(OptionalLong.of(4), array.arrayTask());
        assertEquals(OptionalLong.empty(), array.hetOffset());
        JobId het = JobId.parse("123+1");
        assertEquals(OptionalLong.of(1), het.hetOffset());
        assertEquals(OptionalLong.empty(), het.arrayTask());
        assertEquals(OptionalLong.empty(), JobId.parse("123").arrayTask());
    }

    @Test
    void leadingZerosAreOneIdAsForSlurm() {
        assertEquals(JobId.parse("123"), JobId.parse("000123"));
        assertEquals("123_4", JobId.parse("0123_04").toString());
        assertEquals(JobId.parse("7").hashCode(), JobId.parse("07").hashCode());
    }

    @Test
    void arrayTaskAndHetComponentAreDifferentIds() {
        assertFalse(JobId.parse("123_1").equals(JobId.parse("123+1")));
        assertFalse(JobId.parse("123").equals(JobId.parse("123_0")));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                " ",
                "0",
                "00",
                "-1",
                "+1",
                "1+",
                "1_",
                "_1",
                "+",
                "1.0",
                "1 2",
                " 1",
                "1 ",
                "1\n",
                "1\n2",
                "1;rm -rf /",
                "1;",
                "$(id)",
                "`id`",
                "--help",
                "-h",
                "1_[1-3]",
                "1_[1,2]",
                "1_*",
                "1_2_3",
                "1+2+3",
                "1_2+3",
                "1+2_3",
                "4294967294",
                "4294967295",
                "99999999999999999999",
                "1_4000001",
                "1+128",
                "１２３",
                "١٢٣",
                "12a",
                "0x10",
                "1e3",
                "1,2",
                "1\u0000",
                "1\t"
            })
    void garbageIsRefusedWithTheInputQuoted(String text) {
        InvalidJobIdException e = assertThrows(InvalidJobIdException.class, () -> JobId.parse(text));
        assertTrue(e.getMessage().startsWith("not a valid job id: \""), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        assertFalse(JobId.isValid(text));
    }

    @Test
    void nullIsRefused() {
        assertThrows(InvalidJobIdException.class, () -> JobId.parse(null));
        assertTrue(JobId.tryParse(null).isEmpty());
    }

    @Test
    void aHugeInputIsRefusedBeforeItIsReadAndQuotedOnlyInPart() {
        String huge = "1".repeat(10_240);
        InvalidJobIdException e = assertThrows(InvalidJobIdException.class, () -> JobId.parse(huge));
        assertTrue(e.getMessage().contains("(10240 characters)"), e.getMessage());
        assertTrue(e.getMessage().length() < 200, e.getMessage());
    }

    @Test
    void controlCharactersAreEscapedInTheMessage() {
        InvalidJobIdException e = assertThrows(InvalidJobIdException.class, () -> JobId.parse("12\n3\"x"));
        assertTrue(e.getMessage().contains("\"12\\x0a3\\\"x\""), e.getMessage());
    }

    @Test
    void anArrayExpressionIsRefusedWithAHint() {
        InvalidJobIdException e = assertThrows(InvalidJobIdException.class, () -> JobId.parse("123_[1-3]"));
        assertTrue(e.getMessage().contains("123_1"), e.getMessage());
    }

    @Test
    void ofBuildsThePlainForm() {
        assertEquals(JobId.parse("42"), JobId.of(42));
        assertThrows(InvalidJobIdException.class, () -> JobId.of(0));
    }
}
