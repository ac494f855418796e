package org.slurmautoresume.nodeops.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.configfile.ConfigFields;
import org.slurmautoresume.configfile.ConfigPath;
import org.slurmautoresume.configfile.ConfigText;
import org.slurmautoresume.configfile.ConfigText.Format;
import org.slurmautoresume.configfile.Field;
import org.slurmautoresume.configfile.Problems;
import org.slurmautoresume.configfile.Quote;
import org.slurmautoresume.nodeops.lemon.LemonRule;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.hostlist.HostlistException;

/**
 * Reads a sweep policy from JSON or YAML (by the file's extension: {@code .yaml}/{@code .yml}
 * is YAML, anything else JSON). Fields left out keep their {@link SweepPolicy#DEFAULTS}; an
 * unknown field is an error, since a misspelt limit silently ignored is worse than none. Every
 * problem of the file is reported at once, in the {@link SweepPolicyException}.
 */
public final class SweepPolicyLoader {

    static final long MAX_SECONDS = Duration.ofDays(30).toSeconds();
    static final int MAX_NODES = 100_000;
    static final int MAX_LEMON_MARKS = 1_000;

    private SweepPolicyLoader() {}

    public static SweepPolicy load(Path file) {
        Problems problems = new Problems(file.toString(), ConfigPath.root());
        Optional<JsonNode> tree = ConfigText.read(file, Format.of(file.toString(), Format.JSON), problems);
        return build(tree, problems);
    }

    /** {@code source}: the file name for messages. */
    public static SweepPolicy parse(String text, String source, boolean yaml) {
        Problems problems = new Problems(source, ConfigPath.root());
        return build(ConfigText.parse(text, yaml ? Format.YAML : Format.JSON, problems), problems);
    }

    private static SweepPolicy build(Optional<JsonNode> tree, Problems problems) {
        SweepPolicy policy = tree.map(root -> read(root, problems)).orElse(SweepPolicy.DEFAULTS);
        if (problems.hasErrors()) {
            throw new SweepPolicyException(problems.all());
        }
        return policy;
    }

    private static SweepPolicy read(JsonNode root, Problems problems) {
        SweepPolicy d = SweepPolicy.DEFAULTS;
        Optional<ConfigFields> maybe = ConfigFields.ofOptional(root, problems.root(), problems);
        if (maybe.isEmpty()) {
            return d;
        }
        ConfigFields in = maybe.get();
        SweepPolicy policy = new SweepPolicy(
                seconds(in, "escalateFailAfterSeconds", d.escalateFailAfter()),
                seconds(in, "notRespondingAfterSeconds", d.notRespondingAfter()),
                in.choice("notRespondingAction", List.of("replace", "report"))
                        .map("replace"::equals)
                        .orElse(d.markNotResponding()),
                seconds(in, "completingAfterSeconds", d.completingAfter()),
                seconds(in, "donorMaxAgeSeconds", d.donorMaxAge()),
                in.bool("resumeReturnedNodes").orElse(d.resumeReturned()),
                in.bool("resumeUnexpectedlyRebooted").orElse(d.resumeUnexpectedReboot()),
                in.field("maxNodes").integer(0, MAX_NODES).orElse(d.maxNodes()),
                in.field("maxPartitionPercent").integer(0, 100).orElse(d.maxPartitionPercent()),
                hostlist(in.field("excludeNodes")).orElse(d.excludeNodes()),
                argv(in.field("healthCommand")).orElse(d.healthCommand()),
                seconds(in, "healthTimeoutSeconds", d.healthTimeout()),
                lemon(in, d.lemon()));
        in.rejectUnknown();
        return policy;
    }

    /** {@code lemonMarks} (0: off) and {@code lemonWindowSeconds}, at least a minute. */
    private static LemonRule lemon(ConfigFields in, LemonRule fallback) {
        int marks = in.field("lemonMarks").integer(0, MAX_LEMON_MARKS).orElse(fallback.marks());
        return new LemonRule(marks, seconds(in, "lemonWindowSeconds", 60, fallback.window()));
    }

    private static Duration seconds(ConfigFields in, String field, Duration fallback) {
        return seconds(in, field, 0, fallback);
    }

    /** A number of seconds from {@code min} to 30 days. */
    private static Duration seconds(ConfigFields in, String field, long min, Duration fallback) {
        return in
                .field(field)
                .rangeFix("use a number of seconds from " + min + " to " + MAX_SECONDS + " (30 days)")
                .wholeNumber(min, MAX_SECONDS)
                .stream()
                .mapToObj(Duration::ofSeconds)
                .findFirst()
                .orElse(fallback);
    }

    private static Optional<String> hostlist(Field field) {
        Optional<String> text = field.text();
        try {
            text.ifPresent(Hostlist::expand);
        } catch (HostlistException e) {
            field.error(e.getMessage() + " in " + Quote.text(text.get()), "write a hostlist such as \"node[1-4,7]\"");
            return Optional.empty();
        }
        return text;
    }

    /** The health command is run without a shell, so it is a list of words. */
    private static Optional<List<String>> argv(Field field) {
        if (!field.isPresent()) {
            return Optional.empty();
        }
        List<Field> words = field.required("write it as a list, program first: [ssh, \"{node}\", autoresume, health]")
                .list("a non-empty list of words (program first), not a shell string");
        List<String> argv = new ArrayList<>();
        for (Field word : words) {
            word.required("remove the empty word").text().ifPresent(argv::add);
        }
        return words.isEmpty() || argv.size() != words.size() ? Optional.empty() : Optional.of(argv);
    }
}
