package org.slurmautoresume.nodeops.xid;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the driver's Xid reports in the kernel log: messages such as
 * {@code NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus.}
 *
 * <p>The kernel log is not ours alone to write: users put their own bytes in it. A process
 * named {@code NVRM: Xid (PCI:} that segfaults inside a file named
 * {@code NVRM: Xid (PCI:0000:3b:00): 79, x} makes the kernel log
 * {@code NVRM: Xid (PCI:[6078]: segfault at 0 ... in NVRM: Xid (PCI:0000:3b:00): 79, x[...]}
 * (seen on this project's machines). So a report counts only when the message itself begins with
 * the driver's prefix and the address is a well-formed PCI address: a process name is at most
 * 15 characters, always followed by {@code [pid]}, and cannot complete one. A file name, a
 * comm or anything else a user chooses never starts a kernel message that reaches this far.
 */
public final class XidParser {

    /** The message alone, anchored: the driver's prefix, a PCI domain:bus:device[.function], the code. */
    private static final Pattern XID = Pattern.compile(
            "^NVRM: Xid \\((?:PCI:)?(\\p{XDigit}{4}:\\p{XDigit}{2}:\\p{XDigit}{2}(?:\\.[0-7])?)\\): (\\d{1,5})(?:, ?(.*))?$");

    /** The {@code [ 8123.551201] } that plain {@code dmesg} puts before each message. */
    private static final Pattern DMESG_TIME = Pattern.compile("^\\[\\s*\\d+\\.\\d+\\] ");

    private XidParser() {}

    /** Every Xid in text where each line is one message, optionally after dmesg's time stamp. */
    public static List<XidEvent> parse(String kernelLog) {
        List<XidEvent> events = new ArrayList<>();
        for (String line : kernelLog.split("\n")) {
            Matcher time = DMESG_TIME.matcher(line);
            parseMessage(time.lookingAt() ? line.substring(time.end()) : line).ifPresent(events::add);
        }
        return events;
    }

    /** One kernel message (no time stamp, no syslog prefix) if it is a driver's Xid report. */
    public static Optional<XidEvent> parseMessage(String message) {
        Matcher m = XID.matcher(message.stripTrailing());
        if (!m.matches()) {
            return Optional.empty();
        }
        String detail = m.group(3) == null ? "" : m.group(3).strip();
        return Optional.of(
                new XidEvent("PCI:" + m.group(1).toLowerCase(Locale.ROOT), Integer.parseInt(m.group(2)), detail));
    }
}
