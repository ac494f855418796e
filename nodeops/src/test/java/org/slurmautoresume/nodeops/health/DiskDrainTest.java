package org.slurmautoresume.nodeops.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slurmautoresume.nodeops.health.NodeMarker.Update;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.NodeParser;

/**
 * The disk-full drain as {@code health --mark} sets and lifts it, decided from node records in
 * Slurm 22.05's own {@code scontrol -o show node} format: only the drain the check itself set,
 * unchanged, is ever lifted.
 */
class DiskDrainTest {

    private static final List<Path> CHECKED = List.of(Path.of("/"), Path.of("/scratch"));
    private static final String OWN = "autoresume: disk full: /scratch 99% used";

    /** node4 as scontrol prints it, in {@code state}, with {@code reason} ("" for none). */
    private static Node node(String state, String reason) {
        return new NodeParser()
                .parse("NodeName=node4 Arch=x86_64 CoresPerSocket=4  CPUAlloc=0 CPUEfctv=4 CPUTot=4"
                        + " CPULoad=0.11 AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=127.0.0.1"
                        + " NodeHostName=localhost Port=17004 Version=22.05.8 OS=Linux 6.18 #1 SMP @0  RealMemory=2048"
                        + " AllocMem=0 FreeMem=23881 Sockets=1 Boards=1 State=" + state + " ThreadsPerCore=1 TmpDisk=0"
                        + " Weight=1 Owner=N/A MCS_label=N/A Partitions=debug  BootTime=2026-11-22T04:04:38"
                        + " SlurmdStartTime=2026-11-22T04:13:05 LastBusyTime=2026-11-22T04:14:49 CfgTRES=cpu=4,mem=2G,billing=4"
                        + " AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0"
                        + " ExtSensorsTemp=n/s" + (reason.isEmpty() ? "" : " Reason=" + reason));
    }

    private static HealthReport passed() {
        return new HealthReport(List.of(
                CheckResult.skipped("gpu", "no nvidia-smi"),
                CheckResult.of(DiskCheck.NAME, List.of(Finding.note("/scratch: 40 % free")), "ok")));
    }

    private static HealthReport diskFull(String... shortages) {
        return new HealthReport(List.of(CheckResult.of(
                DiskCheck.NAME,
                java.util.Arrays.stream(shortages)
                        .map(s -> Finding.fault(HealthAction.FREE_SPACE, s))
                        .toList(),
                "ok")));
    }

    private static Update plan(HealthReport report, Node node) {
        return NodeMarker.plan("node4", report, Optional.of(node), "root", CHECKED);
    }

    @Test
    void theReasonNamesEveryShortageAndReadsBackAsItsOwn() {
        String reason = DiskDrain.reason(List.of(
                DiskDrain.spaceShortage(Path.of("/scratch"), 99), DiskDrain.inodeShortage(Path.of("/tmp"), 100)));
        assertEquals("autoresume: disk full: /scratch 99% used, /tmp inodes 100% used", reason);
        assertEquals(Optional.of(List.of("/scratch", "/tmp")), DiskDrain.mountPointsNamed(reason));
        assertEquals(
                "autoresume: disk full: /a?b 3% used",
                DiskDrain.reason(List.of(DiskDrain.spaceShortage(Path.of("/a\nb"), 3))));
    }

    @Test
    void aLongReasonKeepsWholeItemsOnlySoItStillReadsAsItsOwn() {
        List<String> many = java.util.stream.IntStream.range(0, 30)
                .mapToObj(i -> DiskDrain.spaceShortage(Path.of("/mnt/volume-" + i), 99))
                .toList();
        String reason = DiskDrain.reason(many);
        assertTrue(reason.length() <= DiskDrain.MAX_REASON, reason);
        assertTrue(DiskDrain.mountPointsNamed(reason).orElseThrow().size() < 30, reason);
    }

    @Test
    void aFullDiskDrainsANodeInService() {
        Update update = plan(diskFull("/scratch 99% used"), node("IDLE", ""));
        assertEquals(Update.Kind.MARK, update.kind());
        assertEquals("drain", update.mark().orElseThrow().state().word());
        assertEquals(OWN, update.mark().orElseThrow().reason());
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "IDLE+DRAIN       | bad DIMM, do not use [admin@2026-11-22T04:14:46]",
                "IDLE+DRAIN       | NHC: check_fs_mount: /scratch not mounted [root@2026-11-22T04:14:46]",
                "MIXED+FAIL       | Action:Replace [root@2026-11-22T04:14:41]",
                "DOWN             | Not responding [slurm@2026-11-22T04:14:41]",
                "IDLE+DRAIN+REBOOT_REQUESTED | fw update [root@2026-11-22T04:14:46]",
                "IDLE+DRAIN       | autoresume: disk full: /scratch 99% used [root@2026-11-22T04:14:46]"
            })
    void aFullDiskNeverOverwritesAReasonAlreadyThere(String state, String reason) {
        Update update = plan(diskFull("/scratch 99% used"), node(state, reason));
        assertEquals(Update.Kind.LEAVE_ALONE, update.kind(), update.why());
    }

    @Test
    void theChecksOwnDrainIsLiftedOnceSpaceIsBack() {
        Update update = plan(passed(), node("IDLE+DRAIN", OWN + " [root@2026-11-22T04:14:46]"));
        assertEquals(Update.Kind.RESUME, update.kind(), update.why());
        assertEquals(
                Update.Kind.RESUME,
                plan(
                                passed(),
                                node(
                                        "MIXED+DRAIN",
                                        "autoresume: disk full: /scratch 99% used, / inodes 100% used [root@2026-11-22T04:14:46]"))
                        .kind());
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                // someone else's drain
                "IDLE+DRAIN       | bad DIMM, do not use [root@2026-11-22T04:14:46]",
                "IDLE+DRAIN       | NHC: check_fs_free: /scratch 99% used [root@2026-11-22T04:14:46]",
                "IDLE+DRAIN       | maintenance: autoresume: disk full: /scratch 99% used [root@2026-11-22T04:14:46]",
                // the check's words, set by another account
                "IDLE+DRAIN       | autoresume: disk full: /scratch 99% used [alice@2026-11-22T04:14:46]",
                // the reason was changed or added to since
                "IDLE+DRAIN       | autoresume: disk full: /scratch 99% used, do not resume [root@2026-11-22T04:14:46]",
                "IDLE+DRAIN       | autoresume: disk full: /scratch 99% used : Not responding [slurm@2026-11-22T04:14:46]",
                // a filesystem this run did not check
                "IDLE+DRAIN       | autoresume: disk full: /fsx 99% used [root@2026-11-22T04:14:46]",
                // more than a drain now
                "IDLE+DRAIN+FAIL  | autoresume: disk full: /scratch 99% used [root@2026-11-22T04:14:46]",
                "DOWN+DRAIN       | autoresume: disk full: /scratch 99% used [root@2026-11-22T04:14:46]",
                "IDLE+DRAIN+REBOOT_REQUESTED | autoresume: disk full: /scratch 99% used [root@2026-11-22T04:14:46]",
                "IDLE+DRAIN+NOT_RESPONDING | autoresume: disk full: /scratch 99% used [root@2026-11-22T04:14:46]",
                // no longer drained: someone set it down or failed it with the old reason kept
                "MIXED+FAIL       | autoresume: disk full: /scratch 99% used [root@2026-11-22T04:14:46]",
                "DOWN             | autoresume: disk full: /scratch 99% used [root@2026-11-22T04:14:46]"
            })
    void nothingElseIsEverLifted(String state, String reason) {
        Update update = plan(passed(), node(state, reason));
        assertEquals(Update.Kind.LEAVE_ALONE, update.kind(), update.why());
    }

    @Test
    void aNodeInServiceIsLeftAsItIs() {
        assertEquals(Update.Kind.NOTHING, plan(passed(), node("IDLE", "")).kind());
    }

    @Test
    void onlyARunWhoseDiskCheckPassedLooksAtTheNode() {
        HealthReport diskNotRun = new HealthReport(List.of(CheckResult.of("gpu", List.of(), "ok")));
        assertTrue(!NodeMarker.readsNode(diskNotRun));
        assertEquals(
                Update.Kind.NOTHING,
                plan(diskNotRun, node("IDLE+DRAIN", OWN + " [root@2026-11-22T04:14:46]"))
                        .kind());
        HealthReport diskSkipped = new HealthReport(List.of(CheckResult.skipped(DiskCheck.NAME, "no mount points")));
        assertTrue(!NodeMarker.readsNode(diskSkipped));
        HealthReport gpuFault = new HealthReport(List.of(
                CheckResult.of("gpu", List.of(Finding.fault(HealthAction.REPLACE, "found 7 GPU(s), expected 8")), "")));
        assertTrue(NodeMarker.readsNode(gpuFault), "a fault is marked only on a node in service, so it reads the node");
        assertTrue(NodeMarker.readsNode(passed()));
        assertTrue(NodeMarker.readsNode(diskFull("/scratch 99% used")));
    }

    @Test
    void aFaultStillFailsANodeTheDiskCheckDrained() {
        HealthReport gpuFault = new HealthReport(
                List.of(CheckResult.of("gpu", List.of(Finding.fault(HealthAction.REBOOT, "nvidia-smi failed")), "")));
        Update update = plan(gpuFault, node("IDLE+DRAIN", OWN + " [root@2026-11-22T04:14:46]"));
        assertEquals(Update.Kind.MARK, update.kind());
        assertEquals("Action:Reboot", update.mark().orElseThrow().reason());
    }

    @Test
    void aFaultLeavesANodeSomeoneElseTookOutAsItIs() {
        HealthReport gpuFault = new HealthReport(List.of(
                CheckResult.of("gpu", List.of(Finding.fault(HealthAction.REPLACE, "found 7 GPU(s), expected 8")), "")));
        assertEquals(
                Update.Kind.LEAVE_ALONE,
                plan(gpuFault, node("IDLE+DRAIN", "bad DIMM, do not use [root@2026-11-22T04:14:46]"))
                        .kind());
        assertEquals(
                Update.Kind.LEAVE_ALONE,
                plan(
                                gpuFault,
                                node(
                                        "IDLE+DRAIN",
                                        "NHC: check_fs_mount: /scratch not mounted [root@2026-11-22T04:14:46]"))
                        .kind());
        assertEquals(Update.Kind.MARK, plan(gpuFault, node("IDLE", "")).kind());
    }
}
