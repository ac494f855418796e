package org.slurmautoresume.bridge.admin;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.bridge.model.SlurmConfig;
import org.slurmautoresume.bridge.parse.ConfigParser;
import org.slurmautoresume.bridge.parse.Fixtures;

class PrivilegeTest {

    private static final SlurmConfig LOCAL = new ConfigParser().parse(Fixtures.read("slurm-22.05", "show-config.txt"));

    @Test
    void rootMayAlways() {
        assertTrue(Privilege.check(new AdminCaller("root", 0), LOCAL).allowed());
    }

    @Test
    void anOrdinaryUserIsToldUpFrontOnAClusterWithoutAccounting() {
        Privilege.Check check = Privilege.check(new AdminCaller("artest", 1001), LOCAL);
        assertFalse(check.allowed());
        assertTrue(check.message().contains("root or the SlurmUser (root)"), check.message());
        assertTrue(check.message().contains("artest(1001)"), check.message());
    }

    @Test
    void theSlurmUserMay() {
        SlurmConfig config = new SlurmConfig(Map.of("SlurmUser", "slurm(64030)"));
        assertTrue(Privilege.check(new AdminCaller("slurm", 64030), config).allowed());
        assertFalse(Privilege.check(new AdminCaller("alice", 1000), config).allowed());
    }

    @Test
    void withAnAccountingDatabaseAnAdminAccountMayExistSoItOnlyWarns() {
        SlurmConfig config = new SlurmConfig(Map.of("SlurmUser", "slurm(64030)",
                "AccountingStorageType", "accounting_storage/slurmdbd"));
        Privilege.Check check = Privilege.check(new AdminCaller("alice", 1000), config);
        assertTrue(check.allowed());
        assertTrue(check.message().contains("AdminLevel"), check.message());
    }
}
