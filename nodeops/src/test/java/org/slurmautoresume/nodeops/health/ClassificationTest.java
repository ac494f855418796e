package org.slurmautoresume.nodeops.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slurmautoresume.nodeops.xid.XidCatalog;
import org.slurmautoresume.nodeops.xid.XidCatalog.XidClass;
import org.slurmautoresume.nodeops.xid.XidEvent;
import org.slurmautoresume.nodeops.xid.XidParser;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;

class ClassificationTest {

    @ParameterizedTest
    @CsvSource({
        "13, APPLICATION, NONE",
        "31, APPLICATION, NONE",
        "43, APPLICATION, NONE",
        "45, APPLICATION, NONE",
        "48, RESET, REBOOT",
        "63, RESET, REBOOT",
        "74, RESET, REBOOT",
        "79, RESET, REBOOT",
        "92, RESET, REBOOT",
        "94, RESET, REBOOT",
        "95, RESET, REBOOT",
        "119, RESET, REBOOT",
        "140, RESET, REBOOT",
        "64, ISOLATE, REPLACE",
        "999, UNKNOWN, NONE"
    })
    void xidClasses(int code, XidClass expected, HealthAction action) {
        XidClass actual = XidCatalog.classify(new XidEvent("PCI:0000:18:00", code, "detail"));
        assertEquals(expected, actual);
        assertEquals(action, GpuCheck.action(actual));
    }

    @Test
    void xid154FollowsTheDriversRecommendation() {
        List<XidEvent> events = XidParser.parse(HealthFixtures.read("kernel-log/journal-xid-154.txt"));
        assertEquals(XidClass.RESET, XidCatalog.classify(events.get(0)));
        assertEquals(XidClass.APPLICATION, XidCatalog.classify(events.get(1)));
        assertEquals(XidClass.UNKNOWN, XidCatalog.classify(new XidEvent("x", 154, "something else")));
    }

    @Test
    void actionsOrderByCost() {
        assertEquals(HealthAction.REPLACE, HealthAction.REBOOT.worse(HealthAction.REPLACE));
        assertEquals(HealthAction.REPLACE, HealthAction.REPLACE.worse(HealthAction.NONE));
        assertEquals(HealthAction.REBOOT, HealthAction.NONE.worse(HealthAction.REBOOT));
        assertEquals("Action:Replace", HealthAction.REPLACE.reason());
        assertEquals("Action:Reboot", HealthAction.REBOOT.reason());
    }

    @Test
    void resultTakesTheWorstFaultAndKeepsNotes() {
        CheckResult result = CheckResult.of(
                "gpu",
                List.of(
                        Finding.note("8 GPUs"),
                        Finding.fault(HealthAction.REBOOT, "ecc"),
                        Finding.fault(HealthAction.REPLACE, "remap failed")),
                "ok");
        assertEquals(HealthStatus.FAILED, result.status());
        assertEquals(HealthAction.REPLACE, result.action());
        assertEquals("ecc (and 1 more)", result.summary());
        assertEquals(3, result.evidence().size());
        CheckResult passed = CheckResult.of("gpu", List.of(Finding.note("8 GPUs")), "ok");
        assertEquals(HealthStatus.PASSED, passed.status());
        assertEquals(HealthAction.NONE, passed.action());
    }

    @ParameterizedTest
    @CsvSource({
        "stress-ng/success.txt, 0, PASSED, NONE",
        "stress-ng/verification-failure.txt, 7, FAILED, REPLACE",
        "stress-ng/verification-failure.txt, 2, FAILED, REBOOT",
        "stress-ng/success.txt, 5, FAILED, REBOOT",
        "stress-ng/success.txt, 3, SKIPPED, NONE",
        "stress-ng/success.txt, 1, SKIPPED, NONE",
        "stress-ng/verification-failure.txt, 0, FAILED, REBOOT"
    })
    void stressNgExitStatuses(String fixture, int exit, HealthStatus status, HealthAction action) {
        CommandResult result = new CommandResult(
                CommandRequest.of("stress-ng"), exit, HealthFixtures.read(fixture), "", false, java.time.Duration.ZERO);
        CheckResult checked = CpuCheck.classify(result);
        assertEquals(status, checked.status(), checked.toString());
        assertEquals(action, checked.action());
        if (fixture.contains("verification") && status == HealthStatus.FAILED) {
            assertTrue(checked.summary().contains("matrixprod"), checked.summary());
        }
    }

    @Test
    void stressNgThatOverstaysIsAReboot() {
        CommandResult result =
                new CommandResult(CommandRequest.of("stress-ng"), 143, "", "", true, java.time.Duration.ZERO);
        assertEquals(HealthAction.REBOOT, CpuCheck.classify(result).action());
    }
}
