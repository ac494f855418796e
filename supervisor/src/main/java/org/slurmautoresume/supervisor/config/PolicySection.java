package org.slurmautoresume.supervisor.config;

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
import org.slurmautoresume.configfile.ConfigFields;
import org.slurmautoresume.configfile.ConfigPath;
import org.slurmautoresume.configfile.Field;
import org.slurmautoresume.configfile.Quote;
import org.slurmautoresume.supervisor.policy.DumpSettings;
import org.slurmautoresume.supervisor.policy.RestartPolicy;
import org.slurmautoresume.supervisor.policy.SignalNumber;
import org.slurmautoresume.supervisor.policy.Strategy;

/** Reads and checks the restart budgets, the strategy list and the dump settings of {@code runPolicy}. */
final class PolicySection {

    static final Set<String> RESTART_POLICY_FIELDS =
            Set.of("numRestartBeforeFullJobRestart", "evalPeriodSeconds", "maxFullJobRestarts");
    static final Set<String> DUMP_FIELDS = Set.of("signal", "gracePeriodSeconds");
    /** Signals that make sense as "write your last words now". */
    static final List<SignalNumber> DUMP_SIGNALS =
            List.of(SignalNumber.USR1, SignalNumber.USR2, SignalNumber.TERM, SignalNumber.INT, SignalNumber.HUP);
    /** Budgets and periods are ints downstream. */
    private static final long MAX = Integer.MAX_VALUE;

    private PolicySection() {}

    /**
     * Returns the policy (defaults for what is absent); meaningful only when no error was recorded.
     * Warnings about one field come from the per-file pass, those about the merge from the
     * {@code complete} one, so none is said twice.
     */
    static RestartPolicy read(ConfigFields runPolicy, boolean complete) {
        OptionalLong maxRetry = runPolicy.wholeNumber("jobMaxRetryCount", 0, MAX);
        Optional<String> cleanPodPolicy = runPolicy.text("cleanPodPolicy");
        if (cleanPodPolicy.isPresent() && !complete) {
            runPolicy.warning("cleanPodPolicy", "has no meaning for Slurm steps and is ignored");
        }
        OptionalLong beforeFull = OptionalLong.empty();
        OptionalLong evalPeriod = OptionalLong.empty();
        OptionalLong maxFull = OptionalLong.empty();
        Optional<ConfigFields> restart = runPolicy.object("restartPolicy");
        if (restart.isPresent()) {
            ConfigFields in = restart.get();
            in.only(RESTART_POLICY_FIELDS);
            beforeFull = in.wholeNumber("numRestartBeforeFullJobRestart", 0, MAX);
            evalPeriod = in.wholeNumber("evalPeriodSeconds", 1, MAX);
            maxFull = in.wholeNumber("maxFullJobRestarts", 0, MAX);
        }
        List<Strategy> strategies = strategies(runPolicy.field("recoverStrategy"));
        Field dumpField = runPolicy.field("dump");
        DumpSettings dump = dump(dumpField);
        List<Strategy> effective = strategies.isEmpty() ? RestartPolicy.DEFAULT_STRATEGIES : strategies;
        if (complete && dumpField.isPresent() && !effective.contains(Strategy.DUMP)) {
            dumpField.warning("has no effect: \"dump\" is not in recoverStrategy", "");
        }
        return new RestartPolicy(
                (int) maxRetry.orElse(RestartPolicy.DEFAULT_JOB_MAX_RETRY_COUNT),
                beforeFull.isPresent() ? OptionalInt.of((int) beforeFull.getAsLong()) : OptionalInt.empty(),
                evalPeriod,
                (int) maxFull.orElse(RestartPolicy.DEFAULT_MAX_FULL_JOB_RESTARTS),
                effective,
                dump);
    }

    /** A list (["retry", "exit"]) or, as in a recover-strategy annotation, one comma-separated text. */
    private static List<Strategy> strategies(Field field) {
        if (!field.isPresent()) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        List<Field> where = new ArrayList<>();
        if (field.node().isTextual()) {
            for (String part : field.node().asText().split(",", -1)) {
                names.add(part.strip());
                where.add(field);
            }
        } else if (field.node().isArray()) {
            for (Field item : field.list()) {
                if (!item.node().isTextual()) {
                    item.error("expected a strategy name, found " + Quote.describe(item.node()), "");
                    continue;
                }
                names.add(item.node().asText().strip());
                where.add(item);
            }
        } else {
            field.error(
                    "expected a list of strategies or \"retry,recover,...\", found " + Quote.describe(field.node()),
                    "");
            return List.of();
        }
        List<Strategy> strategies = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            Optional<Strategy> strategy = Strategy.fromConfigName(name);
            if (strategy.isEmpty()) {
                String hint = name.equalsIgnoreCase("recover-in-place")
                        ? "; a step is re-run as a whole, so use \"retry\" (same nodes)"
                        : "";
                where.get(i)
                        .error(
                                "unknown strategy " + Quote.text(name) + "; use " + Strategy.allConfigNames() + hint,
                                "");
            } else if (strategies.contains(strategy.get())) {
                where.get(i).error(Quote.text(name) + " is listed twice", "");
            } else {
                strategies.add(strategy.get());
            }
        }
        int exit = strategies.indexOf(Strategy.EXIT);
        if (exit >= 0 && exit < strategies.size() - 1) {
            field.error(
                    "\"exit\" must come last: "
                            + strategies.subList(exit + 1, strategies.size()).stream()
                                    .map(Strategy::configName)
                                    .collect(Collectors.joining(", "))
                            + " after it would never be tried",
                    "");
        }
        if (names.isEmpty() || (strategies.size() == 1 && strategies.get(0) == Strategy.DUMP)) {
            field.error("needs at least one of retry, recover, requeue, exit", "");
        }
        return strategies;
    }

    private static DumpSettings dump(Field field) {
        Optional<ConfigFields> maybe = field.object();
        if (maybe.isEmpty()) {
            return DumpSettings.DEFAULT;
        }
        ConfigFields in = maybe.get();
        in.only(DUMP_FIELDS);
        SignalNumber signal = in.text("signal")
                .map(name -> signal(name, in.pathOf("signal"), in))
                .orElse(DumpSettings.DEFAULT.signal());
        OptionalLong grace = in.wholeNumber("gracePeriodSeconds", 0, MAX);
        return new DumpSettings(
                signal, grace.isPresent() ? Duration.ofSeconds(grace.getAsLong()) : DumpSettings.DEFAULT.gracePeriod());
    }

    private static SignalNumber signal(String name, ConfigPath path, ConfigFields in) {
        String bare = name.strip().toUpperCase(Locale.ROOT);
        String wanted = bare.startsWith("SIG") ? bare.substring(3) : bare;
        Optional<SignalNumber> signal =
                DUMP_SIGNALS.stream().filter(s -> s.name().equals(wanted)).findFirst();
        if (signal.isEmpty()) {
            in.problems()
                    .error(
                            path,
                            "unknown signal " + Quote.text(name) + "; use one of "
                                    + Arrays.toString(DUMP_SIGNALS.stream()
                                            .map(SignalNumber::displayName)
                                            .toArray()));
            return DumpSettings.DEFAULT.signal();
        }
        return signal.get();
    }
}
