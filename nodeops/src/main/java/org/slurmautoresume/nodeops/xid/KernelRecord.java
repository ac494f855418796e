package org.slurmautoresume.nodeops.xid;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One record of {@code /dev/kmsg}: {@code PRIORITY,SEQUENCE,MICROSECONDS,FLAGS[,...];MESSAGE},
 * then continuation lines starting with a space (dictionary entries), which are ignored.
 *
 * <p>The facility in the priority tells who wrote the record. The kernel refuses facility 0
 * (kernel) to every writer of {@code /dev/kmsg}, root included, so a record of facility 0 came
 * from kernel code. The kernel escapes unprintable bytes of a message (a newline becomes
 * {@code \x0a}), so one read is one message: a user cannot start a line of their own inside one.
 */
public record KernelRecord(int facility, int level, long sequence, long microsSinceBoot, String message) {

    private static final Pattern HEADER = Pattern.compile("^(\\d{1,4}),(\\d{1,20}),(\\d{1,20}),[^;]*;(.*)$");

    /** The kernel's own facility. */
    public static final int KERNEL = 0;

    public boolean fromKernel() {
        return facility == KERNEL;
    }

    /** The first line of {@code text} read as a record, or empty when it is not one. */
    public static Optional<KernelRecord> parse(String text) {
        int newline = text.indexOf('\n');
        String first = newline < 0 ? text : text.substring(0, newline);
        Matcher m = HEADER.matcher(first);
        if (!m.matches()) {
            return Optional.empty();
        }
        try {
            int priority = Integer.parseInt(m.group(1));
            return Optional.of(new KernelRecord(
                    priority >> 3, priority & 7, Long.parseLong(m.group(2)), Long.parseLong(m.group(3)), m.group(4)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
