package org.slurmautoresume.nodeops.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DcgmReportTest {

    @ParameterizedTest
    @CsvSource({
        "dcgmi/health-healthy.txt, Healthy, 0, REBOOT",
        "dcgmi/health-warning-pcie.txt, Warning, 3, REBOOT",
        "dcgmi/health-failure-memory.txt, Failure, 3, REBOOT",
        "dcgmi/health-failure-row-remap.txt, Failure, 3, REPLACE"})
    void healthVerdicts(String fixture, String overall, int details, HealthAction actionIfFailed) {
        DcgmReport.Health health = DcgmReport.health(HealthFixtures.read(fixture));
        assertEquals(Optional.of(overall), health.overall());
        assertEquals(details, health.details().size(), health.details().toString());
        assertEquals(actionIfFailed, DcgmCheck.healthAction(health.details()));
    }

    @Test
    void healthDetailsKeepTheMessage() {
        DcgmReport.Health health = DcgmReport.health(HealthFixtures.read("dcgmi/health-failure-memory.txt"));
        assertTrue(health.details().contains("Memory system Failure"), health.details().toString());
        assertTrue(health.details().contains("A volatile double-bit ECC error has occurred on GPU 1."));
        DcgmReport.Health pcie = DcgmReport.health(HealthFixtures.read("dcgmi/health-warning-pcie.txt"));
        assertEquals("Detected more than 8 PCIe replays per minute for GPU 0: 13", pcie.details().get(2));
    }

    @Test
    void noVerdictWhenTheHostEngineIsDown() {
        assertTrue(DcgmReport.health(HealthFixtures.read("dcgmi/hostengine-down.txt")).overall().isEmpty());
        assertTrue(DcgmReport.diag(HealthFixtures.read("dcgmi/hostengine-down.txt")).isEmpty());
    }

    @Test
    void diagTestsAreReadWithoutMetadata() {
        List<DcgmReport.DiagTest> tests = DcgmReport.diag(HealthFixtures.read("dcgmi/diag-r1-pass.txt"));
        assertEquals(9, tests.size(), tests.toString());
        assertEquals("Denylist", tests.get(0).name());
        assertTrue(tests.stream().noneMatch(DcgmReport.DiagTest::failed));
    }

    @Test
    void aFailedDeploymentTestKeepsItsWarningAndNeedsAPerson() {
        List<DcgmReport.DiagTest> tests = DcgmReport.diag(HealthFixtures.read("dcgmi/diag-r1-fail-persistence.txt"));
        DcgmReport.DiagTest persistence = tests.stream().filter(DcgmReport.DiagTest::failed).findFirst().orElseThrow();
        assertEquals("Persistence Mode", persistence.name());
        assertEquals(1, persistence.messages().size(), persistence.messages().toString());
        assertTrue(persistence.messages().get(0).contains("Persistence mode for GPU 0 is disabled"));
        assertTrue(persistence.messages().get(0).endsWith("-pm 1 \" as root."), persistence.messages().get(0));
        assertEquals(HealthAction.NONE, DcgmCheck.diagAction(persistence));
        assertEquals(9, tests.size());
    }

    @Test
    void aFailedHardwareTestIsAReplace() {
        List<DcgmReport.DiagTest> tests = DcgmReport.diag(HealthFixtures.read("dcgmi/diag-r2-fail-pcie.txt"));
        DcgmReport.DiagTest pcie = tests.stream().filter(DcgmReport.DiagTest::failed).findFirst().orElseThrow();
        assertEquals("PCIe", pcie.name());
        assertEquals(List.of("GPU: 3", "Warning: GPU 3 Error using CUDA API cudaMemcpy."), pcie.messages());
        assertEquals(HealthAction.REPLACE, DcgmCheck.diagAction(pcie));
        assertEquals("Pass", tests.get(tests.size() - 1).verdict());
    }
}
