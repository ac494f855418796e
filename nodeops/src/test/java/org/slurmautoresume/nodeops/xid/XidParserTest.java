package org.slurmautoresume.nodeops.xid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class XidParserTest {

    @Test
    void theDriversMessageParses() {
        Optional<XidEvent> event = XidParser.parseMessage(
                "NVRM: Xid (PCI:0000:5D:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.");
        assertEquals(
                Optional.of(new XidEvent(
                        "PCI:0000:5d:00", 79, "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")),
                event);
        assertEquals("0000:5d:00", event.get().pciAddress());
        assertEquals(
                13,
                XidParser.parseMessage("NVRM: Xid (0000:2a:00.0): 13, Graphics Exception")
                        .get()
                        .code());
    }

    /**
     * Text users put in the kernel log, as the kernel logged it on this project's machine when an
     * ordinary user ran a crashing program named {@code NVRM: Xid (PCI:0000:3b:00): 79, x} (its
     * process name is cut to 15 characters), and with a newline in the name as dmesg prints it.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "NVRM: Xid (PCI:[6078]: segfault at 0 ip 000055c8ff71e139 sp 00007fffd067a450 error 6 in NVRM: Xid"
                        + " (PCI:0000:3b:00): 79, x[1139,55c8ff71e000+1000] likely on CPU 0 (core 0, socket 0)",
                "               NVRM: Xid (PCI:0000:3b:00): 79, y[1139,5625759e1000+1000] likely on CPU 0 (core 0, socket 0)",
                "process 'sh' launched '/tmp/NVRM: Xid (PCI:0000:3b:00): 79, x' with NULL argv: empty string added",
                "a\\x0aNVRM: Xid (PC[8697]: segfault at 0 ip 00005625759e1139 in a\\x0aNVRM: Xid (PCI:0000:3b:00): 79, y[1139]",
                "NVRM: Xid (PCI:0000:3b): 79, too short an address",
                "NVRM: Xid (PCI:0000:3b:00): seventy-nine"
            })
    void textAUserCanWriteIsNotAnXid(String message) {
        assertEquals(Optional.empty(), XidParser.parseMessage(message));
        assertTrue(XidParser.parse(message + "\n[ 12.5] " + message).isEmpty());
    }

    @Test
    void dmesgTimeStampsAreTheOnlyPrefixAllowed() {
        List<XidEvent> events =
                XidParser.parse("[91034.120051] NVRM: Xid (PCI:0000:5d:00): 79, GPU has fallen off the bus.\n"
                        + "Nov 20 03:12:44 host kernel: NVRM: Xid (PCI:0000:9a:00): 48, DBE\n");
        assertEquals(List.of(79), events.stream().map(XidEvent::code).toList());
    }
}
