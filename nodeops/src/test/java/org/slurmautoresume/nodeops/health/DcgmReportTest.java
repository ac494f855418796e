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
        "dcgmi/health-failure-row-remap.txt, Failure, 3, REPLACE"
    })
    void healthVerdicts(String fixture, String overall, int details, HealthAction actionIfFailed) {
        DcgmReport.Health health = DcgmReport.health(HealthFixtures.read(fixture));
        assertEquals(Optional.of(overall), health.overall());
        assertEquals(details, health.details().size(), health.details().toString());
        assertEquals(actionIfFailed, DcgmCheck.healthAction(health.details()));
    }

    @Test
    void healthDetailsKeepTheMessage() {
        DcgmReport.Health health = DcgmReport.health(HealthFixtures.read("dcgmi/health-failure-memory.txt"));
        assertTrue(
                health.details().contains("Memory system Failure"),
                health.details().toString());
        assertTrue(health.details().contains("A volatile double-bit ECC error has occurred on GPU 1."));
        DcgmReport.Health pcie = DcgmReport.health(HealthFixtures.read("dcgmi/health-warning-pcie.txt"));
        assertEquals(
                "Detected more than 8 PCIe replays per minute for GPU 0: 13",
                pcie.details().get(2));
    }

    @Test
    void noVerdictWhenTheHostEngineIsDown() {
        assertTrue(DcgmReport.health(HealthFixtures.read("dcgmi/hostengine-down.txt"))
                .overall()
                .isEmpty());
        assertTrue(DcgmDiagJson.parse(HealthFixtures.read("dcgmi/hostengine-down.txt"))
                .isEmpty());
    }

    @Test
    void diagTestsAreReadFromDcgm3Json() {
        List<DcgmDiagJson.DiagTest> tests = DcgmDiagJson.parse(HealthFixtures.read("dcgmi/diag-r1-pass.json"));
        assertEquals(9, tests.size(), tests.toString());
        assertEquals(
                List.of("Deployment", "Denylist", "Pass"),
                List.of(
                        tests.get(0).category(),
                        tests.get(0).name(),
                        tests.get(0).verdict()));
        assertTrue(tests.stream().noneMatch(DcgmDiagJson.DiagTest::failed));
    }

    @Test
    void aFailedDeploymentTestOfDcgm4KeepsItsWarningPerGpuAndNeedsAPerson() {
        List<DcgmDiagJson.DiagTest> tests =
                DcgmDiagJson.parse(HealthFixtures.read("dcgmi/diag-r1-fail-persistence.json"));
        assertEquals(1, tests.size(), tests.toString());
        DcgmDiagJson.DiagTest software = tests.get(0);
        // GPU 0 failed and GPU 1 passed: the test fails.
        assertEquals(List.of("software", "Fail"), List.of(software.name(), software.verdict()));
        assertEquals(1, software.messages().size(), software.messages().toString());
        assertTrue(
                software.messages()
                        .get(0)
                        .startsWith("GPU 0: Persistence Mode: Persistence mode for GPU 0 is disabled."),
                software.messages().get(0));
        assertTrue(
                software.messages().get(0).endsWith("-pm 1 \" as root."),
                software.messages().get(0));
        assertEquals(HealthAction.NONE, DcgmCheck.diagAction(software));
    }

    @Test
    void aFailedHardwareTestIsAReplaceAndNamesItsGpu() {
        List<DcgmDiagJson.DiagTest> tests = DcgmDiagJson.parse(HealthFixtures.read("dcgmi/diag-r2-fail-pcie.json"));
        DcgmDiagJson.DiagTest pcie =
                tests.stream().filter(DcgmDiagJson.DiagTest::failed).findFirst().orElseThrow();
        assertEquals("PCIe", pcie.name());
        assertEquals(List.of("GPU 3: Error using CUDA API cudaMemcpy."), pcie.messages());
        assertEquals(HealthAction.REPLACE, DcgmCheck.diagAction(pcie));
        // Three GPUs passed GPU Memory and GPU 3 was skipped: a pass, not a failure.
        assertEquals("Pass", tests.get(tests.size() - 1).verdict());
    }

    @Test
    void aStatusWordItDoesNotKnowIsNeverAPassAndProseIsNoDocument() {
        List<DcgmDiagJson.DiagTest> tests = DcgmDiagJson.parse(
                "{\"DCGM GPU Diagnostic\": {\"test_categories\": [{"
                        + "\"category\": \"Hardware\", \"tests\": [{\"name\": \"Memtest\", \"results\": ["
                        + "{\"gpu_ids\": \"0\", \"status\": \"Pass\"}, {\"gpu_ids\": \"1\", \"status\": \"Inconclusive\"}]}]}]}}");
        assertEquals("Unknown", tests.get(0).verdict());
        assertTrue(DcgmDiagJson.parse("Error: unable to establish a connection to the specified host: localhost")
                .isEmpty());
        assertTrue(DcgmDiagJson.parse("{not json}").isEmpty());
    }
}
