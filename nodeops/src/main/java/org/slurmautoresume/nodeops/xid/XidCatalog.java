package org.slurmautoresume.nodeops.xid;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Our classification of the Xid codes that matter for a node's health, drawn from NVIDIA's
 * public Xid documentation and its GPU memory error management guide (the facts; the table and
 * its grouping are ours):
 * <ul>
 *   <li>APPLICATION: caused by the program on the GPU (13, 31, 43, 45); the node is fine.</li>
 *   <li>RESET: cleared by a GPU reset or a reboot (double-bit ECC 48, row-remap event 63 that
 *       takes effect at the next reset, NVLink 74, fallen off the bus 79, high single-bit ECC
 *       rate 92, contained/uncontained ECC 94/95, micro-controller 61/62, GSP 119/120,
 *       unrecovered ECC 140): the node needs a reboot.</li>
 *   <li>ISOLATE: the memory could not be repaired (64, a failed page retirement or row remap):
 *       the GPU is bad for good, the node needs replacing.</li>
 * </ul>
 * Xid 154 carries the driver's own recommendation ("GPU recovery action changed from ... to
 * 0x2 (Node Reboot Required)"); anything but "None" is RESET. Codes not listed are UNKNOWN: they
 * are reported as evidence and fail nothing.
 */
public final class XidCatalog {

    public enum XidClass {
        APPLICATION,
        RESET,
        ISOLATE,
        UNKNOWN;

        public boolean isFault() {
            return this == RESET || this == ISOLATE;
        }
    }

    /** What one code means and where it belongs. */
    public record Entry(int code, String meaning, XidClass xidClass) {}

    private static final int RECOVERY_ACTION_CHANGED = 154;
    private static final Pattern RECOVERY_TO = Pattern.compile("to 0x[0-9a-fA-F]+ \\(([^)]*)\\)");

    private static final Map<Integer, Entry> ENTRIES = Map.ofEntries(
            entry(13, "graphics engine exception", XidClass.APPLICATION),
            entry(31, "GPU memory page fault", XidClass.APPLICATION),
            entry(43, "GPU stopped processing", XidClass.APPLICATION),
            entry(45, "preemptive cleanup after an earlier error", XidClass.APPLICATION),
            entry(48, "double-bit ECC error", XidClass.RESET),
            entry(61, "internal micro-controller breakpoint/warning", XidClass.RESET),
            entry(62, "internal micro-controller halt", XidClass.RESET),
            entry(63, "page retirement or row remap recorded, active after a GPU reset", XidClass.RESET),
            entry(64, "page retirement or row remap failed", XidClass.ISOLATE),
            entry(74, "NVLink error", XidClass.RESET),
            entry(79, "GPU has fallen off the bus", XidClass.RESET),
            entry(92, "high single-bit ECC error rate", XidClass.RESET),
            entry(94, "contained ECC error", XidClass.RESET),
            entry(95, "uncontained ECC error", XidClass.RESET),
            entry(119, "GSP RPC timeout", XidClass.RESET),
            entry(120, "GSP error", XidClass.RESET),
            entry(140, "unrecovered ECC error", XidClass.RESET));

    private XidCatalog() {}

    private static Map.Entry<Integer, Entry> entry(int code, String meaning, XidClass xidClass) {
        return Map.entry(code, new Entry(code, meaning, xidClass));
    }

    public static Optional<Entry> lookup(int code) {
        return Optional.ofNullable(ENTRIES.get(code));
    }

    /** The class of one logged event; for Xid 154 the driver's stated recovery action decides. */
    public static XidClass classify(XidEvent event) {
        if (event.code() == RECOVERY_ACTION_CHANGED) {
            Matcher m = RECOVERY_TO.matcher(event.detail());
            if (!m.find()) {
                return XidClass.UNKNOWN;
            }
            return m.group(1).strip().toLowerCase(Locale.ROOT).equals("none") ? XidClass.APPLICATION : XidClass.RESET;
        }
        return lookup(event.code()).map(Entry::xidClass).orElse(XidClass.UNKNOWN);
    }

    /** "Xid 79 (GPU has fallen off the bus) on PCI:0000:3b:00", for evidence. */
    public static String describe(XidEvent event) {
        String meaning = event.code() == RECOVERY_ACTION_CHANGED
                ? "GPU recovery action changed: " + event.detail()
                : lookup(event.code()).map(Entry::meaning).orElse("not in our table: " + event.detail());
        return "Xid " + event.code() + " (" + meaning + ") on " + event.device();
    }
}
