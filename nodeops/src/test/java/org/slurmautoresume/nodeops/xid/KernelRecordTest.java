package org.slurmautoresume.nodeops.xid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class KernelRecordTest {

    @Test
    void aKernelRecordWithContinuationLines() {
        KernelRecord record = KernelRecord.parse("3,1042,91034120051,-;NVRM: Xid (PCI:0000:5d:00): 79, x\n"
                        + " SUBSYSTEM=pci\n DEVICE=+pci:0000:5d:00.0\n")
                .orElseThrow();
        assertTrue(record.fromKernel());
        assertEquals(3, record.level());
        assertEquals(1042, record.sequence());
        assertEquals(91034120051L, record.microsSinceBoot());
        assertEquals("NVRM: Xid (PCI:0000:5d:00): 79, x", record.message());
    }

    @Test
    void whatUserSpaceWritesToKmsgIsNotTheKernels() {
        // echo '<3>NVRM: Xid ...' >/dev/kmsg as root: the kernel gives it facility 1 (user), 1*8+3.
        KernelRecord record = KernelRecord.parse("11,1043,91035000000,-;NVRM: Xid (PCI:0000:5d:00): 79, x")
                .orElseThrow();
        assertFalse(record.fromKernel());
        assertEquals(1, record.facility());
    }

    @Test
    void notARecord() {
        assertEquals(Optional.empty(), KernelRecord.parse("NVRM: Xid (PCI:0000:5d:00): 79, x"));
        assertEquals(Optional.empty(), KernelRecord.parse("3,x,1,-;text"));
        assertEquals(Optional.empty(), KernelRecord.parse(""));
    }
}
