package org.slurmautoresume.supervisor.config;

import static org.slurmautoresume.supervisor.config.FieldReader.absent;
import static org.slurmautoresume.supervisor.config.FieldReader.child;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import org.slurmautoresume.supervisor.policy.DumpSettings;
import org.slurmautoresume.supervisor.policy.RestartPolicy;
import org.slurmautoresume.supervisor.policy.Strategy;
import org.slurmautoresume.supervisor.policy.SignalNumber;

/** Reads and checks the restart budgets, the strategy list and the dump settings of {@code runPolicy}. */
final class PolicySection {

    static final Set<String> RESTART_POLICY_FIELDS =
            Set.of("numRestartBeforeFullJobRestart", "evalPeriodSeconds", "maxFullJobRestarts");
    static final Set<String> DUMP_FIELDS = Set.of("signal", "gracePeriodSeconds");
    /** Signals that make sense as "write your last words now". */
    static final List<SignalNumber> DUMP_SIGNALS =
            List.of(SignalNumber.USR1, SignalNumber.USR2, SignalNumber.TERM, SignalNumber.INT, SignalNumber.HUP);

    private PolicySection() {
    }

    /**
     * Returns the policy (defaults for what is absent); meaningful only when no error was recorded.
     * Warnings about one field come from the per-file pass, those about the merge from the
     * {@code complete} one, so none is said twice.
     */
    static RestartPolicy read(JsonNode runPolicy, String path, FieldReader in, boolean complete) {
        OptionalLong maxRetry = in.wholeNumber(runPolicy, "jobMaxRetryCount", path, 0);
        Optional<String> cleanPodPolicy = in.text(runPolicy, "cleanPodPolicy", path);
        if (cleanPodPolicy.isPresent() && !complete) {
            in.warning(child(path, "cleanPodPolicy"), "has no meaning for Slurm steps and is ignored");
        }
        String restartPath = child(path, "restartPolicy");
        JsonNode restart = runPolicy.get("restartPolicy");
        OptionalLong beforeFull = OptionalLong.empty();
        OptionalLong evalPeriod = OptionalLong.empty();
        OptionalLong maxFull = OptionalLong.empty();
        if (in.isObjectOrAbsent(restart, restartPath) && !absent(restart)) {
            in.rejectUnknownFields(restart, RESTART_POLICY_FIELDS, restartPath);
            beforeFull = in.wholeNumber(restart, "numRestartBeforeFullJobRestart", restartPath, 0);
            evalPeriod = in.wholeNumber(restart, "evalPeriodSeconds", restartPath, 1);
            maxFull = in.wholeNumber(restart, "maxFullJobRestarts", restartPath, 0);
        }
        List<Strategy> strategies = strategies(runPolicy.get("recoverStrategy"), child(path, "recoverStrategy"), in);
        DumpSettings dump = dump(runPolicy.get("dump"), child(path, "dump"), in);
        List<Strategy> effective = strategies.isEmpty() ? RestartPolicy.DEFAULT_STRATEGIES : strategies;
        if (complete && !absent(runPolicy.get("dump")) && !effective.contains(Strategy.DUMP)) {
            in.warning(child(path, "dump"), "has no effect: \"dump\" is not in recoverStrategy");
        }
        return new RestartPolicy((int) maxRetry.orElse(RestartPolicy.DEFAULT_JOB_MAX_RETRY_COUNT),
                beforeFull.isPresent() ? OptionalInt.of((int) beforeFull.getAsLong()) : OptionalInt.empty(),
                evalPeriod, (int) maxFull.orElse(RestartPolicy.DEFAULT_MAX_FULL_JOB_RESTARTS),
                effective, dump);
    }

    /** A list (["retry", "exit"]) or, as in a recover-strategy annotation, one comma-separated text. */
    private static List<Strategy> strategies(JsonNode node, String path, FieldReader in) {
        if (absent(node)) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        if (node.isTextual()) {
            String[] parts = node.asText().split(",", -1);
            for (String part : parts) {
                names.add(part.strip());
                paths.add(path);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                JsonNode item = node.get(i);
                if (!item.isTextual()) {
                    in.error(path + "[" + i + "]", "expected a strategy name, found " + FieldReader.describe(item));
                    continue;
                }
                names.add(item.asText().strip());
                paths.add(path + "[" + i + "]");
            }
        } else {
            in.error(path, "expected a list of strategies or \"retry,recover,...\", found " + FieldReader.describe(node));
            return List.of();
        }
        List<Strategy> strategies = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            Optional<Strategy> strategy = Strategy.fromConfigName(name);
            if (strategy.isEmpty()) {
                String hint = name.equalsIgnoreCase("recover-in-place")
                        ? "; a step is re-run as a whole, so use \"retry\" (same nodes)" : "";
                in.error(paths.get(i), "unknown strategy \"" + name + "\"; use " + Strategy.allConfigNames() + hint);
            } else if (strategies.contains(strategy.get())) {
                in.error(paths.get(i), "\"" + name + "\" is listed twice");
            } else {
                strategies.add(strategy.get());
            }
        }
        int exit = strategies.indexOf(Strategy.EXIT);
        if (exit >= 0 && exit < strategies.size() - 1) {
            in.error(path, "\"exit\" must come last: " + strategies.subList(exit + 1, strategies.size()).stream()
                    .map(Strategy::configName).collect(Collectors.joining(", ")) + " after it would never be tried");
        }
        if (names.isEmpty() || (strategies.size() == 1 && strategies.get(0) == Strategy.DUMP)) {
            in.error(path, "needs at least one of retry, recover, requeue, exit");
        }
        return strategies;
    }

    private static DumpSettings dump(JsonNode node, String path, FieldReader in) {
        if (absent(node) || !in.isObjectOrAbsent(node, path)) {
            return DumpSettings.DEFAULT;
        }
        in.rejectUnknownFields(node, DUMP_FIELDS, path);
        SignalNumber signal = in.text(node, "signal", path).map(name -> signal(name, child(path, "signal"), in))
                .orElse(DumpSettings.DEFAULT.signal());
        OptionalLong grace = in.wholeNumber(node, "gracePeriodSeconds", path, 0);
        return new DumpSettings(signal, grace.isPresent() ? Duration.ofSeconds(grace.getAsLong())
                : DumpSettings.DEFAULT.gracePeriod());
    }

    private static SignalNumber signal(String name, String path, FieldReader in) {
        String bare = name.strip().toUpperCase(Locale.ROOT);
        String wanted = bare.startsWith("SIG") ? bare.substring(3) : bare;
        Optional<SignalNumber> signal = DUMP_SIGNALS.stream().filter(s -> s.name().equals(wanted)).findFirst();
        if (signal.isEmpty()) {
            in.error(path, "unknown signal \"" + name + "\"; use one of " + Arrays.toString(
                    DUMP_SIGNALS.stream().map(SignalNumber::displayName).toArray()));
            return DumpSettings.DEFAULT.signal();
        }
        return signal.get();
    }
}
