package org.slurmautoresume.cli;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slurmautoresume.supervisor.step.record.Goodput;

/** A job's goodput as {@code autoresume job} prints it: table rows, or a JSON object with stable field names. */
final class GoodputView {

    private GoodputView() {}

    /** {@code goodput} in JSON: seconds as numbers, a ratio that cannot be known as null. */
    static Map<String, Object> json(Goodput g) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("ratio", g.ratio().orElse(null));
        doc.put("ratioAtMost", g.ratioAtMost().orElse(null));
        doc.put("elapsedSeconds", seconds(g.elapsed()));
        doc.put("productiveSeconds", seconds(g.productive()));
        Map<String, Object> lost = new LinkedHashMap<>();
        for (String cause : Goodput.CAUSES) {
            lost.put(cause, seconds(g.lost(cause)));
        }
        doc.put("lostSeconds", lost);
        doc.put("unattributedSeconds", seconds(g.unattributed()));
        doc.put("faults", g.faults());
        doc.put("unmeasuredDetections", g.unmeasuredDetections());
        return doc;
    }

    /** The rows under the job's own: the ratio, then where the time went. */
    static List<String[]> rows(Goodput g) {
        String ratio = g.ratio().map(GoodputView::percent).orElse("-");
        if (g.unattributed().compareTo(Duration.ZERO) > 0) {
            ratio = ratio + " to " + g.ratioAtMost().map(GoodputView::percent).orElse("-")
                    + " (" + text(g.unattributed())
                    + " not attributed: no heartbeat or checkpoint rule to split it)";
        }
        StringBuilder lost = new StringBuilder(text(g.lost()));
        String sep = " (";
        for (String cause : Goodput.CAUSES) {
            lost.append(sep).append(cause).append(' ').append(text(g.lost(cause)));
            sep = ", ";
        }
        lost.append(')');
        String faults = Integer.toString(g.faults());
        if (g.unmeasuredDetections() > 0) {
            faults += " (" + g.unmeasuredDetections() + " detected without a measured latency, counted as at once)";
        }
        return List.of(
                new String[] {"goodput", ratio},
                new String[] {"productive", text(g.productive()) + " of " + text(g.elapsed())},
                new String[] {"lost", lost.toString()},
                new String[] {"faults", faults});
    }

    /** When the job has no timeline here: why its goodput is not shown. */
    static List<String[]> unknown(String why) {
        return List.<String[]>of(new String[] {"goodput", "- (" + why + ")"});
    }

    private static double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }

    private static String text(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", seconds(d));
    }

    private static String percent(double ratio) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * ratio);
    }
}
