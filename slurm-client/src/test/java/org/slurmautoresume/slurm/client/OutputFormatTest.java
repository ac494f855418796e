package org.slurmautoresume.slurm.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class OutputFormatTest {

    @Test
    void aKnownReleasePicksItsFormatAndAnythingElseLeavesItToScontrol() {
        assertEquals(OutputFormat.TEXT, OutputFormat.forRelease("22.05.8"));
        assertEquals(OutputFormat.JSON, OutputFormat.forRelease("23.02.0"));
        assertEquals(OutputFormat.JSON, OutputFormat.forRelease("24.11.1"));
        assertEquals(OutputFormat.AUTO, OutputFormat.forRelease(null));
        assertEquals(OutputFormat.AUTO, OutputFormat.forRelease(""));
        assertEquals(OutputFormat.AUTO, OutputFormat.forRelease("unknown"));
    }
}
