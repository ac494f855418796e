package org.slurmautoresume.nodeops.admin;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Caller;
import org.slurmautoresume.slurm.model.SlurmConfig;
import org.slurmautoresume.slurm.parse.ConfigParser;
import org.slurmautoresume.slurm.parse.Fixtures;

class PrivilegeTest {

    private static final SlurmConfig LOCAL = new ConfigParser().parse(Fixtures.read("slurm-22.05", "show-config.txt"));

    @Test
    void rootMayAlways() {
        assertTrue(Privilege.check(new Caller(0, "root"), LOCAL).allowed());
    }

    @Test
    void anOrdinaryUserIsToldUpFrontOnAClusterWithoutAccounting() {
        Privilege.Check check = Privilege.check(new Caller(1001, "artest"), LOCAL);
        assertFalse(check.allowed());
        assertTrue(check.message().contains("root or the SlurmUser (root)"), check.message());
        assertTrue(check.message().contains("artest(1001)"), check.message());
    }

    @Test
    void theSlurmUserMay() {
        SlurmConfig config = new SlurmConfig(Map.of("SlurmUser", "slurm(64030)"));
        assertTrue(Privilege.check(new Caller(64030, "slurm"), config).allowed());
        assertFalse(Privilege.check(new Caller(1000, "alice"), config).allowed());
    }

    @Test
    void withAnAccountingDatabaseAnAdminAccountMayExistSoItOnlyWarns() {
        SlurmConfig config = new SlurmConfig(
                Map.of("SlurmUser", "slurm(64030)", "AccountingStorageType", "accounting_storage/slurmdbd"));
        Privilege.Check check = Privilege.check(new Caller(1000, "alice"), config);
        assertTrue(check.allowed());
        assertTrue(check.message().contains("AdminLevel"), check.message());
    }
}
