package org.slurmautoresume.slurm.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.SlurmConfig;

class ConfigParserTest {

    private final SlurmConfig config = new ConfigParser().parse(Fixtures.read("slurm-22.05", "show-config.txt"));

    @Test
    void readsTheSettingsResumeDependsOn() {
        assertEquals(Optional.of("arlocal"), config.get("ClusterName"));
        assertEquals(10, config.seconds("SlurmdTimeout").getAsInt());
        assertTrue(config.listContains("SchedulerParameters", "permit_job_expansion"));
        assertFalse(config.listContains("SchedulerParameters", "permit_job"));
        assertEquals(Optional.of("task/none"), config.get("TaskPlugin"));
        assertEquals(Optional.of("22.05.8"), config.get("SLURM_VERSION"));
        assertEquals(Optional.of("2"), config.get("ReturnToService"));
    }

    @Test
    void nullIsAbsentAndKeysAreCaseInsensitive() {
        assertTrue(config.get("PrologFlags").isEmpty());
        assertEquals(config.get("ClusterName"), config.get("clustername"));
        assertTrue(config.get("NoSuchKey").isEmpty());
    }

    @Test
    void skipsHeaderAndStatusLines() {
        assertTrue(config.values().keySet().stream().noneMatch(k -> k.contains(" ") || k.startsWith("Configuration")));
    }

    @Test
    void outputWithoutSettingsIsAnErrorThatQuotesIt() {
        ParseException e = assertThrows(ParseException.class, () -> new ConfigParser().parse("scontrol: error: nope"));
        assertTrue(e.getMessage().contains("scontrol: error: nope"));
    }
}
