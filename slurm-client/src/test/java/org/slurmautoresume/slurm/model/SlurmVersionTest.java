package org.slurmautoresume.slurm.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SlurmVersionTest {

    @Test
    void parsesWhatScontrolPrints() {
        assertEquals(new SlurmVersion(22, 5, 8), SlurmVersion.parse("slurm-wlm 22.05.8\n"));
        assertEquals(new SlurmVersion(24, 11, 1), SlurmVersion.parse("slurm 24.11.1"));
        assertEquals(new SlurmVersion(23, 2, 0), SlurmVersion.parse("slurm 23.02"));
    }

    @Test
    void printsAsSlurmDoes() {
        assertEquals("22.05.8", new SlurmVersion(22, 5, 8).toString());
        assertEquals("24.11.10", new SlurmVersion(24, 11, 10).toString());
        assertEquals("100.00.0", new SlurmVersion(100, 0, 0).toString());
        assertEquals(String.format("%02d.%02d.%d", 7, 3, 1), new SlurmVersion(7, 3, 1).toString());
    }

    @Test
    void ordersReleases() {
        assertFalse(SlurmVersion.parse("22.05.8").atLeast(SlurmVersion.FIRST_WITH_JSON));
        assertTrue(SlurmVersion.parse("23.02.1").atLeast(SlurmVersion.FIRST_WITH_JSON));
        assertTrue(SlurmVersion.parse("24.05.0").atLeast(SlurmVersion.FIRST_WITH_JSON));
    }

    @Test
    void garbageIsAnErrorThatQuotesIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SlurmVersion.parse("nope"));
        assertTrue(e.getMessage().contains("nope"));
    }
}
