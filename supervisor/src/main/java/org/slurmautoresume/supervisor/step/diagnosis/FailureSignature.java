package org.slurmautoresume.supervisor.step.diagnosis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How an attempt failed, reduced to what another attempt failing the same way would share: srun's
 * exit status and either the log rule that ended it or the application's last error lines with
 * everything that differs from run to run taken out (numbers, hex, timestamps, host names), so
 * {@code rank 3 on node2} and {@code rank 7 on node5} read the same. Pure: text in, value out.
 *
 * @param exitStatus srun's exit status
 * @param rule       the rule that ended the attempt and the state it reached ({@code NanLoss FAULTED})
 * @param lines      without a rule: the distinct normalized error lines, sorted, so ranks that
 *                   print the same error in another order still match
 */
public record FailureSignature(int exitStatus, Optional<String> rule, List<String> lines) {

    /** How many of the last error lines are compared: enough for an exception and its cause. */
    static final int ERROR_LINES = 5;

    /** The longest a signature is said in a line of the log or the timeline. */
    private static final int SAID = 300;

    /** Words that make a line an error line: Python's, C's, CUDA's and NCCL's ways of failing. */
    private static final Pattern ERROR = Pattern.compile(
            "(?i)error|exception|fatal|fail|abort|panic|traceback|segmentation fault|core dumped|assert|killed");

    /** Lines srun, slurmstepd and this toolkit write themselves: they say a task failed, not how. */
    private static final Pattern NOT_THE_APPLICATION =
            Pattern.compile("^(\\d+: )?(srun|slurmstepd|salloc|sbatch)(\\[\\d+])?: |^\\[auto-resume]");

    private static final Pattern TIMESTAMP = Pattern.compile(
            "\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}:\\d{2}(?:[.,]\\d+)?(?:Z|[+-]\\d{2}:?\\d{2})?|\\b\\d{2}:\\d{2}:\\d{2}(?:[.,]\\d+)?");
    private static final Pattern HEX = Pattern.compile("\\b0x[0-9a-fA-F]+\\b|\\b(?=[0-9a-fA-F]*\\d)[0-9a-fA-F]{8,}\\b");
    private static final Pattern NUMBER = Pattern.compile("\\d+(?:\\.\\d+)?");
    private static final Pattern SPACE = Pattern.compile("\\s+");

    public FailureSignature {
        lines = List.copyOf(lines);
    }

    /** An attempt a log rule ended: the rule and its state, with srun's status. */
    public static FailureSignature ofRule(int exitStatus, String rule, String state) {
        return new FailureSignature(exitStatus, Optional.of(rule + " " + state), List.of());
    }

    /**
     * An attempt that failed by itself: its last error lines, normalized; empty when the
     * application said nothing that reads as an error, which is no evidence that two failures
     * are the same.
     *
     * @param stderrTail the last lines srun passed on from the step's stderr
     * @param hosts      the nodes the step ran on, taken out of the lines by name
     */
    public static Optional<FailureSignature> ofOutput(
            int exitStatus, List<String> stderrTail, Collection<String> hosts) {
        List<String> errors = new ArrayList<>();
        for (int i = stderrTail.size() - 1; i >= 0 && errors.size() < ERROR_LINES; i--) {
            String line = stderrTail.get(i).strip();
            if (!line.isEmpty()
                    && !NOT_THE_APPLICATION.matcher(line).find()
                    && ERROR.matcher(line).find()) {
                errors.add(normalize(line, hosts));
            }
        }
        if (errors.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new FailureSignature(exitStatus, Optional.empty(), List.copyOf(new TreeSet<>(errors))));
    }

    /** One line with what changes from run to run replaced by placeholders. */
    static String normalize(String line, Collection<String> hosts) {
        String text = line;
        for (String host : hosts) {
            if (!host.isBlank()) {
                text = text.replaceAll("(?<![\\w.-])" + Pattern.quote(host) + "(?![\\w-])", "<host>");
            }
        }
        text = replace(TIMESTAMP, text, "<time>");
        text = replace(HEX, text, "<hex>");
        text = replace(NUMBER, text, "<n>");
        return SPACE.matcher(text).replaceAll(" ").strip();
    }

    private static String replace(Pattern pattern, String text, String with) {
        return pattern.matcher(text).replaceAll(Matcher.quoteReplacement(with));
    }

    /** The signature in one line, for the log and the timeline. */
    public String describe() {
        String what = rule.map(r -> "rule " + r).orElseGet(() -> String.join(" | ", lines));
        if (what.length() > SAID) {
            what = what.substring(0, SAID) + "...";
        }
        return "exit " + exitStatus + ", " + what;
    }
}
