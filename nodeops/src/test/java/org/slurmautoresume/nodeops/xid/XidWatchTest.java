package org.slurmautoresume.nodeops.xid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class XidWatchTest {

    @TempDir
    Path dir;

    private final List<XidWatch.Sighting> seen = new ArrayList<>();

    private XidWatch watch(String... gpus) {
        return new XidWatch(new InMemory(), address -> List.of(gpus).contains(address), seen::add);
    }

    @Test
    void eachKindOfXidIsReportedOnceWithItsClass() {
        XidWatch watch = watch("0000:5d:00", "0000:2a:00");
        watch.accept(
                KernelRecord.parse("3,10,100,-;NVRM: Xid (PCI:0000:5d:00): 79, GPU has fallen off the bus.")
                        .get(),
                true);
        watch.accept(
                KernelRecord.parse("3,11,101,-;NVRM: Xid (PCI:0000:5d:00): 79, GPU has fallen off the bus.")
                        .get(),
                true);
        watch.accept(
                KernelRecord.parse("4,12,102,-;NVRM: Xid (PCI:0000:2a:00): 13, Graphics Exception")
                        .get(),
                false);
        assertEquals(List.of(79, 13), seen.stream().map(s -> s.event().code()).toList());
        assertEquals(XidCatalog.XidClass.RESET, seen.get(0).xidClass());
        assertTrue(seen.get(0).afterStart());
        assertEquals(XidCatalog.XidClass.APPLICATION, seen.get(1).xidClass());
        assertFalse(seen.get(1).afterStart());
        assertEquals(2, watch.count(seen.get(0).event()));
        assertEquals(12, watch.lastSequence());
    }

    @Test
    void anXidAlreadyInTheLogDoesNotHideTheSameXidComingBack() {
        XidWatch watch = watch("0000:5d:00");
        watch.accept(
                KernelRecord.parse("3,1,100,-;NVRM: Xid (PCI:0000:5d:00): 79, before the agent started")
                        .get(),
                false);
        watch.accept(
                KernelRecord.parse("3,2,200,-;NVRM: Xid (PCI:0000:5d:00): 79, again after a reset by hand")
                        .get(),
                true);
        watch.accept(
                KernelRecord.parse("3,3,300,-;NVRM: Xid (PCI:0000:5d:00): 79, and again")
                        .get(),
                true);
        assertEquals(
                List.of(false, true),
                seen.stream().map(XidWatch.Sighting::afterStart).toList());
        assertEquals(3, watch.count(seen.get(0).event()));
    }

    @Test
    void onlyTheKernelsRecordsForThisNodesGpusCount() {
        XidWatch watch = watch("0000:5d:00");
        // user space (root included) writing to /dev/kmsg gets facility 1
        watch.accept(
                KernelRecord.parse("11,20,100,-;NVRM: Xid (PCI:0000:5d:00): 79, forged")
                        .get(),
                true);
        // a well-formed report for a device this node does not have
        watch.accept(
                KernelRecord.parse("3,21,101,-;NVRM: Xid (PCI:0000:99:00): 79, forged")
                        .get(),
                true);
        // a user's crashing program named to look like one
        watch.accept(
                KernelRecord.parse("6,22,102,-;NVRM: Xid (PCI:[6078]: segfault at 0 ip 0 sp 0 error 6 in NVRM: Xid"
                                + " (PCI:0000:5d:00): 79, x[1139,55c8ff71e000+1000]")
                        .get(),
                true);
        assertEquals(List.of(), seen);
        assertEquals(22, watch.lastSequence(), "kernel records are read past, user ones are not counted");
    }

    @Test
    void aFollowedFileGivesItsBacklogThenNewLines() throws Exception {
        Path log = dir.resolve("kmsg");
        Files.writeString(log, "3,1,10,-;NVRM: Xid (PCI:0000:5d:00): 13, old\n");
        BlockingQueue<XidWatch.Sighting> queue = new LinkedBlockingQueue<>();
        try (XidWatch watch = new XidWatch(new FollowedFile(log, Duration.ofMillis(20)), a -> true, queue::add)) {
            watch.start();
            XidWatch.Sighting old = queue.poll(10, TimeUnit.SECONDS);
            assertEquals(13, old.event().code());
            assertFalse(old.afterStart());
            Files.writeString(log, "3,2,20,-;NVRM: Xid (PCI:0000:5d:00): 7", StandardOpenOption.APPEND);
            Files.writeString(log, "9, half a line first\n", StandardOpenOption.APPEND);
            XidWatch.Sighting fresh = queue.poll(10, TimeUnit.SECONDS);
            assertEquals(79, fresh.event().code());
            assertTrue(fresh.afterStart());
        }
    }

    @Test
    void aFileOthersCanWriteIsRefused() throws IOException {
        Path log = dir.resolve("kmsg");
        Files.writeString(log, "", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(log, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
        IOException refused = org.junit.jupiter.api.Assertions.assertThrows(
                IOException.class, () -> KernelRecordSource.followFile(log, Duration.ofMillis(20)));
        assertTrue(refused.getMessage().contains("writable by root alone"), refused.getMessage());
    }

    @Test
    void pciGpusReadsTheVendorFromSysfs() throws IOException {
        Path device = Files.createDirectories(dir.resolve("bus/pci/devices/0000:5d:00.0"));
        Files.writeString(device.resolve("vendor"), "0x10de\n");
        Path nic = Files.createDirectories(dir.resolve("bus/pci/devices/0000:5e:00.0"));
        Files.writeString(nic.resolve("vendor"), "0x15b3\n");
        PciGpus gpus = new PciGpus(dir);
        assertTrue(gpus.test("0000:5d:00"));
        assertTrue(gpus.test("0000:5d:00.0"));
        assertFalse(gpus.test("0000:5e:00"), "a Mellanox NIC is not a GPU");
        assertFalse(gpus.test("0000:5f:00"), "absent");
        assertFalse(gpus.test("../../../etc"), "not an address");
    }

    /** Nothing in the buffer, nothing arrives: for tests that feed {@link XidWatch#accept} directly. */
    private static final class InMemory implements KernelRecordSource {
        @Override
        public List<String> backlog() {
            return List.of();
        }

        @Override
        public java.util.Optional<String> next() {
            return java.util.Optional.empty();
        }

        @Override
        public String describe() {
            return "memory";
        }

        @Override
        public void close() {}
    }
}
