package org.slurmautoresume.nodeops.health;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the driver's Xid reports in kernel log text ({@code dmesg}, {@code journalctl -k}): lines
 * such as {@code NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus.} Anything
 * else in the log is ignored.
 */
public final class XidParser {

    private static final Pattern XID = Pattern.compile("NVRM: Xid \\(([^)]*)\\): (\\d{1,5})\\s*,?\\s*(.*)");

    private XidParser() {
    }

    public static List<XidEvent> parse(String kernelLog) {
        List<XidEvent> events = new ArrayList<>();
        for (String line : kernelLog.split("\n")) {
            Matcher m = XID.matcher(line);
            if (m.find()) {
                events.add(new XidEvent(m.group(1).strip(), Integer.parseInt(m.group(2)), m.group(3).strip()));
            }
        }
        return events;
    }
}
