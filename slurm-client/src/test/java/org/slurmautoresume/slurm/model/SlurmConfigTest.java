package org.slurmautoresume.slurm.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SlurmConfigTest {

    /** 22.05 names the none plugin; 24.11 prints (null) for the same setting; a missing key proves nothing. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {"accounting_storage/none | true", "(null) | true", "accounting_storage/slurmdbd | false"})
    void readsAccountingOffAsEveryReleasePrintsIt(String type, boolean none) {
        assertEquals(none, new SlurmConfig(Map.of("AccountingStorageType", type)).keepsNoAccounting());
    }

    @org.junit.jupiter.api.Test
    void aConfigWithoutTheKeyIsNotTakenForNoAccounting() {
        assertEquals(false, new SlurmConfig(Map.of("ClusterName", "c")).keepsNoAccounting());
    }

    @org.junit.jupiter.api.Test
    void theControllersBootTimeIsRead() {
        SlurmConfig config = new SlurmConfig(java.util.Map.of("BOOT_TIME", "2026-11-22T04:13:02"));
        assertEquals(java.util.Optional.of(java.time.LocalDateTime.parse("2026-11-22T04:13:02")), config.bootTime());
        assertEquals(java.util.Optional.empty(), new SlurmConfig(java.util.Map.of()).bootTime());
        // As scontrol show config prints it, captured from both releases.
        for (String[] release :
                new String[][] {{"slurm-22.05", "2026-11-22T04:13:02"}, {"slurm-24.11", "2026-11-24T23:50:33"}}) {
            SlurmConfig captured = new org.slurmautoresume.slurm.parse.ConfigParser()
                    .parse(org.slurmautoresume.slurm.parse.Fixtures.read(release[0], "show-config.txt"));
            assertEquals(
                    java.util.Optional.of(java.time.LocalDateTime.parse(release[1])), captured.bootTime(), release[0]);
        }
    }
}
