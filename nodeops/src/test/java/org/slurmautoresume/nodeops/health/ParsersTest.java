package org.slurmautoresume.nodeops.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slurmautoresume.nodeops.xid.XidEvent;
import org.slurmautoresume.nodeops.xid.XidParser;
import org.slurmautoresume.slurm.parse.ParseException;

class ParsersTest {

    @Test
    void healthyQueryGivesEightGpusWithZeroCounters() {
        List<GpuStatus> gpus = NvidiaSmiParser.gpus(HealthFixtures.read("nvidia-smi/query-gpu-8-healthy.csv"));
        assertEquals(8, gpus.size());
        assertEquals(7, gpus.get(7).index());
        assertEquals("00000000:DB:00.0", gpus.get(7).busId());
        assertTrue(gpus.stream().allMatch(g -> g.uncorrectedEccVolatile().equals(OptionalLong.of(0))));
        assertTrue(gpus.stream().allMatch(g -> g.retiredPagesPending().equals(Optional.of(false))));
    }

    @Test
    void eccCountAndPendingRetirementAreRead() {
        List<GpuStatus> gpus = NvidiaSmiParser.gpus(HealthFixtures.read("nvidia-smi/query-gpu-7-ecc.csv"));
        assertEquals(OptionalLong.of(2), gpus.get(1).uncorrectedEccVolatile());
        assertEquals(Optional.of(true), gpus.get(2).retiredPagesPending());
    }

    @Test
    void unsupportedValuesAreUnknownNotZero() {
        GpuStatus gpu = NvidiaSmiParser.gpus(HealthFixtures.read("nvidia-smi/query-gpu-unsupported.csv"))
                .get(0);
        assertTrue(gpu.uncorrectedEccVolatile().isEmpty());
        assertTrue(gpu.retiredPagesPending().isEmpty());
    }

    @Test
    void garbageIsAnErrorQuotingTheLine() {
        ParseException e =
                assertThrows(ParseException.class, () -> NvidiaSmiParser.gpus("0, 00:18.0, GPU-x, lots, No\n"));
        assertTrue(e.getMessage().contains("lots"), e.getMessage());
        assertThrows(
                ParseException.class,
                () -> NvidiaSmiParser.gpus("Failed to initialize NVML: Driver/library version mismatch"));
    }

    @Test
    void remapFlagsAreRead() {
        List<RowRemapStatus> remaps =
                NvidiaSmiParser.remaps(HealthFixtures.read("nvidia-smi/remapped-rows-pending-and-failure.csv"));
        assertEquals(4, remaps.size());
        assertEquals(Optional.of(true), remaps.get(1).pending());
        assertEquals(Optional.of(false), remaps.get(1).failure());
        assertEquals(Optional.of(true), remaps.get(2).failure());
        assertEquals(
                Optional.of(true),
                NvidiaSmiParser.remaps("00000000:18:00.0, Yes, No").get(0).pending());
    }

    @Test
    void xidLinesAreFoundAndOthersIgnored() {
        List<XidEvent> events = XidParser.parse(HealthFixtures.read("kernel-log/dmesg-xid-79-13-13.txt"));
        assertEquals(List.of(13, 13, 79), events.stream().map(XidEvent::code).toList());
        assertEquals("PCI:0000:5d:00", events.get(2).device());
        assertTrue(
                events.get(2).detail().contains("fallen off the bus"),
                events.get(2).detail());
        assertTrue(XidParser.parse(HealthFixtures.read("kernel-log/dmesg-clean.txt"))
                .isEmpty());
    }

    @Test
    void journalMessagesParse() {
        List<XidEvent> events = XidParser.parse(HealthFixtures.read("kernel-log/journal-xid-154.txt"));
        assertEquals(List.of(154, 154, 999), events.stream().map(XidEvent::code).toList());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = ';',
            value = {
                "gpu:8;8", "gpu:h100:8(S:0-1);8", "gpu:a100:4(S:0),gpu:v100:2(S:1);6", "gpu:tesla:2(S:0,1),nic:4;2",
                "(null);-1", "nic:4;-1", "gpus:8;-1", "'';-1"
            })
    void gresGpuCount(String gres, int expected) {
        assertEquals(expected < 0 ? OptionalInt.empty() : OptionalInt.of(expected), GresGpus.count(gres));
    }

    @Test
    void mountTableUnescapesAndFlagsReadOnly() {
        MountTable table = MountTable.parse(HealthFixtures.read("mounts/proc-mounts.txt"));
        assertTrue(table.at("/opt/dlami/nvme").orElseThrow().readOnly());
        assertTrue(!table.at("/").orElseThrow().readOnly());
        assertEquals("xfs", table.at("/mnt/my data").orElseThrow().type());
        assertTrue(table.at("/scratch").isEmpty());
        MountTable over = MountTable.parse("a /x ext4 rw 0 0\nb /x ext4 ro 0 0\n");
        assertEquals("b", over.at("/x").orElseThrow().device());
    }
}
