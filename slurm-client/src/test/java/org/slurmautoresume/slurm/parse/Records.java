package org.slurmautoresume.slurm.parse;

import java.util.regex.Matcher;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;

/**
 * Real 22.05 records from the fixtures, renamed or with one field changed where a test needs a
 * state the capture did not hold (each caller says which field it changed).
 */
public final class Records {

    public static final String V22 = "slurm-22.05";

    private Records() {}

    /** The fixture's node record as text, renamed to {@code name}. */
    public static String nodeText(String fixture, String name) {
        return Fixtures.read(V22, fixture)
                .strip()
                .replaceFirst("^NodeName=\\S+", "NodeName=" + Matcher.quoteReplacement(name));
    }

    public static Node node(String fixture, String name) {
        return new NodeParser().parse(nodeText(fixture, name));
    }

    /** The fixture's node with its {@code Reason=} (the last field) replaced. */
    public static Node nodeWithReason(String fixture, String name, String reason) {
        return new NodeParser().parse(nodeTextWithReason(fixture, name, reason));
    }

    /** The fixture's node record as text with its {@code Reason=} (the last field) replaced; null: none. */
    public static String nodeTextWithReason(String fixture, String name, String reason) {
        String text = nodeText(fixture, name);
        int at = text.indexOf(" Reason=");
        return (at < 0 ? text : text.substring(0, at)) + (reason == null ? "" : " Reason=" + reason);
    }

    /** The fixture's node with one {@code Key=value} field (without blanks) replaced. */
    public static Node nodeWith(String fixture, String name, String key, String value) {
        return new NodeParser().parse(replaceField(nodeText(fixture, name), key, value));
    }

    public static String jobText(String fixture) {
        return Fixtures.read(V22, fixture).strip();
    }

    public static Job job(String fixture) {
        return new JobParser().parse(jobText(fixture));
    }

    /** The fixture's job with one {@code Key=value} field (without blanks) replaced. */
    public static Job jobWith(String fixture, String key, String value) {
        return new JobParser().parse(replaceField(jobText(fixture), key, value));
    }

    public static String replaceField(String record, String key, String value) {
        String replaced = record.replaceFirst(
                "(^| )" + java.util.regex.Pattern.quote(key) + "=\\S*",
                "$1" + Matcher.quoteReplacement(key + "=" + value));
        if (replaced.equals(record) && !record.contains(" " + key + "=" + value)) {
            throw new IllegalArgumentException("no field " + key + " in " + record);
        }
        return replaced;
    }
}
