package org.slurmautoresume.nodeops.health;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slurmautoresume.slurm.exec.CommandResult;

/**
 * CPU stress with stress-ng: one worker per online CPU, every method, results verified, for
 * a short time. Read with stress-ng's documented exit statuses: 0 success; 1 bad options or a
 * fatal resource problem, 3 no resources, 4 stressor not implemented (the test could not run:
 * SKIPPED); 2 a stressor failed, 5 killed by a signal, 6 unexpected exit (REBOOT); 7 a
 * verification failure, wrong results computed (REPLACE).
 */
public final class CpuCheck implements HealthCheck {

    public static final String NAME = "cpu";
    /** stress-ng's own time limit plus this is the runner's; a stress run that overstays is a fault. */
    static final Duration GRACE = Duration.ofSeconds(60);

    /** stress-ng takes every CPU: the other checks do not run beside it. */
    @Override
    public boolean runsAlone() {
        return true;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "stress-ng --cpu 0 --cpu-method all --verify for a few seconds";
    }

    @Override
    public CheckResult run(HealthContext context) {
        Optional<Path> stress = context.tool("stress-ng");
        if (stress.isEmpty()) {
            return CheckResult.skipped(NAME, "stress-ng is not on PATH");
        }
        Duration duration = context.settings().cpuStress();
        List<String> args = List.of(
                "--cpu",
                "0",
                "--cpu-method",
                "all",
                "--verify",
                "--timeout",
                duration.toSeconds() + "s",
                "--metrics-brief");
        CommandResult result = context.run(stress.get(), args, duration.plus(GRACE));
        return classify(result);
    }

    static CheckResult classify(CommandResult result) {
        String output = result.stdout() + "\n" + result.stderr();
        String failLines = failLines(output);
        if (result.timedOut()) {
            return CheckResult.of(
                    NAME,
                    List.of(Finding.fault(
                            HealthAction.REBOOT,
                            "stress-ng overstayed its time limit: " + HealthContext.describeFailure(result))),
                    "");
        }
        int code = result.exitCode();
        if (code == 0 && !output.toLowerCase(Locale.ROOT).contains("unsuccessful run")) {
            return CheckResult.of(NAME, List.of(Finding.note(lastInfoLine(output))), "stress-ng run successful");
        }
        String detail = "stress-ng exited with status " + code + (failLines.isEmpty() ? "" : ": " + failLines);
        return switch (code) {
            case 1, 3, 4 -> CheckResult.skipped(NAME, "stress-ng could not run the test (" + detail + ")");
            case 7 ->
                CheckResult.of(
                        NAME,
                        List.of(Finding.fault(HealthAction.REPLACE, "CPU computed wrong results: " + detail)),
                        "");
            default -> CheckResult.of(NAME, List.of(Finding.fault(HealthAction.REBOOT, detail)), "");
        };
    }

    /** stress-ng's "fail:" and "unsuccessful" lines, which name the stressor that failed. */
    private static String failLines(String output) {
        StringBuilder out = new StringBuilder();
        for (String line : output.split("\n")) {
            String lower = line.toLowerCase(Locale.ROOT);
            if ((lower.contains(" fail:") || lower.contains("unsuccessful") || lower.contains("verification"))
                    && out.length() < 600) {
                out.append(out.length() == 0 ? "" : " | ").append(line.strip());
            }
        }
        return out.toString();
    }

    private static String lastInfoLine(String output) {
        String last = "stress-ng exited 0";
        for (String line : output.split("\n")) {
            if (line.contains("successful run") || line.contains("passed:")) {
                last = line.strip();
            }
        }
        return last;
    }
}
