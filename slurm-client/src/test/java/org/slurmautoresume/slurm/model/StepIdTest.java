package org.slurmautoresume.slurm.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StepIdTest {

    @ParameterizedTest
    @ValueSource(
            strings = {"123.0", "123.batch", "123.extern", "123.interactive", "123+1.0", "123_4.2", "123.4294967279"})
    void validStepIdsReadBackAsWritten(String text) {
        assertEquals(text, StepId.parse(text).toString());
    }

    @Test
    void partsAreKept() {
        StepId step = StepId.parse("123+1.7");
        assertEquals(JobId.parse("123+1"), step.job());
        assertEquals("7", step.step());
        assertEquals(step, JobId.parse("123+1").step("7"));
        assertEquals("123.batch", StepId.parse("123.BATCH").toString());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "123",
                "123.",
                ".0",
                "123.-1",
                "123.+1",
                "123.0.0",
                "123.foo",
                "123.0;id",
                "123.0\n",
                "123. 0",
                "abc.0",
                "0.0",
                "123.4294967280",
                "123_[1-2].0",
                "-123.0"
            })
    void garbageIsRefusedWithTheInputQuoted(String text) {
        InvalidJobIdException e = assertThrows(InvalidJobIdException.class, () -> StepId.parse(text));
        assertTrue(e.getMessage().startsWith("not a valid step id: \""), e.getMessage());
    }

    @Test
    void aHugeInputIsRefused() {
        InvalidJobIdException e =
                assertThrows(InvalidJobIdException.class, () -> StepId.parse("1." + "0".repeat(10_240)));
        assertTrue(e.getMessage().length() < 200, e.getMessage());
    }
}
