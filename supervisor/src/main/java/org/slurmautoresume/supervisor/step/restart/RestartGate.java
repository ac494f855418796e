package org.slurmautoresume.supervisor.step.restart;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.slurmautoresume.supervisor.policy.Decision;
import org.slurmautoresume.supervisor.policy.DumpSettings;
import org.slurmautoresume.supervisor.policy.Fault;
import org.slurmautoresume.supervisor.policy.FaultKind;
import org.slurmautoresume.supervisor.policy.RestartLevel;
import org.slurmautoresume.supervisor.policy.RestartPolicy;
import org.slurmautoresume.supervisor.policy.RestartPolicyEvaluator;
import org.slurmautoresume.supervisor.policy.RestartRecord;
import org.slurmautoresume.supervisor.policy.Strategy;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;

/**
 * The restart policy as one supervisor applies it: the configuration's budgets and strategies,
 * the {@code AUTORESUME_MAX_*} and {@code AUTORESUME_ON_EXHAUSTED} variables on top, and
 * the restarts already made (over the job's life, read from the history file, plus this run's).
 *
 * <p>One precedence: an environment variable that is set beats the configuration files, which
 * beat the defaults. Without any configuration file the variables alone make the policy:
 * {@code retry} up to {@code AUTORESUME_MAX_APP_RETRIES} (default 0),
 * {@code recover} up to {@code AUTORESUME_MAX_NODE_RETRIES} (default 2), then requeue or exit as
 * {@code AUTORESUME_ON_EXHAUSTED} says. With a file, a variable that is set caps its kind of step
 * restart for this srun in addition to {@code jobMaxRetryCount}; {@code AUTORESUME_ON_EXHAUSTED=exit}
 * forbids requeues and {@code =requeue} puts {@code requeue} before {@code exit} in the list.
 */
public final class RestartGate {

    /** A count nobody reaches: "no limit" in the policy's terms. */
    static final int UNLIMITED = Integer.MAX_VALUE;

    private final RestartPolicy policy;
    private final OptionalInt appCap;
    private final OptionalInt nodeCap;
    private final boolean requeueFromEnvironment;
    private final List<RestartRecord> history;
    private int retriesHere;
    private int recoversHere;

    RestartGate(
            RestartPolicy policy,
            OptionalInt appCap,
            OptionalInt nodeCap,
            boolean requeueFromEnvironment,
            List<RestartRecord> earlier) {
        this.policy = Objects.requireNonNull(policy);
        this.appCap = appCap;
        this.nodeCap = nodeCap;
        this.requeueFromEnvironment = requeueFromEnvironment;
        this.history = new ArrayList<>(earlier);
    }

    /**
     * Builds the gate for one supervisor.
     *
     * @param configured  the merged configuration's policy, or null when no file was read
     * @param settings    the variables' values, and which of them were set
     * @param earlier     restarts made earlier in this job's life
     */
    public static RestartGate of(RestartPolicy configured, SupervisorSettings settings, List<RestartRecord> earlier) {
        boolean appSet = settings.setInEnvironment().maxAppRetries();
        boolean nodeSet = settings.setInEnvironment().maxNodeRetries();
        boolean exhaustedSet = settings.setInEnvironment().onExhausted();
        boolean requeue = settings.onExhausted() == SupervisorSettings.OnExhausted.REQUEUE;
        if (configured == null) {
            RestartPolicy fromVariables = new RestartPolicy(
                    settings.maxAppRetries() + settings.maxNodeRetries(),
                    OptionalInt.empty(),
                    OptionalLong.empty(),
                    requeue ? UNLIMITED : 0,
                    requeue
                            ? List.of(Strategy.RETRY, Strategy.RECOVER, Strategy.REQUEUE, Strategy.EXIT)
                            : List.of(Strategy.RETRY, Strategy.RECOVER, Strategy.EXIT),
                    DumpSettings.DEFAULT);
            return new RestartGate(
                    fromVariables,
                    OptionalInt.of(settings.maxAppRetries()),
                    OptionalInt.of(settings.maxNodeRetries()),
                    requeue && exhaustedSet,
                    earlier);
        }
        RestartPolicy policy = configured;
        if (exhaustedSet) {
            List<Strategy> strategies = new ArrayList<>(configured.strategies());
            int maxFull;
            if (requeue) {
                if (!strategies.contains(Strategy.REQUEUE)) {
                    int exit = strategies.indexOf(Strategy.EXIT);
                    strategies.add(exit < 0 ? strategies.size() : exit, Strategy.REQUEUE);
                }
                maxFull = configured.maxFullJobRestarts() > 0 ? configured.maxFullJobRestarts() : UNLIMITED;
            } else {
                strategies.remove(Strategy.REQUEUE);
                maxFull = 0;
            }
            policy = new RestartPolicy(
                    configured.jobMaxRetryCount(),
                    configured.numRestartBeforeFullJobRestart(),
                    configured.evalPeriodSeconds(),
                    maxFull,
                    strategies,
                    configured.dump());
        }
        return new RestartGate(
                policy,
                appSet ? OptionalInt.of(settings.maxAppRetries()) : OptionalInt.empty(),
                nodeSet ? OptionalInt.of(settings.maxNodeRetries()) : OptionalInt.empty(),
                requeue && exhaustedSet,
                earlier);
    }

    public RestartPolicy policy() {
        return policy;
    }

    /** True when the variable, not a file, is why a requeue is allowed (named in the log). */
    public boolean requeueFromEnvironment() {
        return requeueFromEnvironment;
    }

    /** What to do about {@code fault}, counting every restart made so far. Changes nothing. */
    public synchronized Decision decide(Fault fault) {
        return decideFiltered(fault, false);
    }

    /**
     * As {@link #decide(Fault)}, with the step-level strategies ruled out: for a node fault whose
     * repair failed, where only a requeue or giving up is left.
     */
    public synchronized Decision decideWithoutStepRestart(Fault fault, String why) {
        return withPassedOver(decideFiltered(fault, true), List.of("recover: " + why));
    }

    private Decision decideFiltered(Fault fault, boolean noStepRestart) {
        List<Strategy> strategies = new ArrayList<>(policy.strategies());
        List<String> capped = new ArrayList<>();
        if (noStepRestart) {
            strategies.remove(Strategy.RETRY);
            strategies.remove(Strategy.RECOVER);
        } else {
            if (fault.kind() != FaultKind.NODE_FAULT
                    && appCap.isPresent()
                    && retriesHere >= appCap.getAsInt()
                    && strategies.remove(Strategy.RETRY)) {
                capped.add("retry: application retries used up (" + SupervisorSettings.MAX_APP_RETRIES + "="
                        + appCap.getAsInt() + ")");
            }
            if (fault.kind() == FaultKind.NODE_FAULT
                    && nodeCap.isPresent()
                    && recoversHere >= nodeCap.getAsInt()
                    && strategies.remove(Strategy.RECOVER)) {
                capped.add("recover: node retries used up (" + SupervisorSettings.MAX_NODE_RETRIES + "="
                        + nodeCap.getAsInt() + ")");
            }
        }
        if (strategies.stream().allMatch(s -> s == Strategy.DUMP)) {
            strategies.add(Strategy.EXIT);
        }
        RestartPolicy effective = new RestartPolicy(
                policy.jobMaxRetryCount(),
                policy.numRestartBeforeFullJobRestart(),
                policy.evalPeriodSeconds(),
                policy.maxFullJobRestarts(),
                strategies,
                policy.dump());
        return withPassedOver(RestartPolicyEvaluator.decide(fault, List.copyOf(history), effective), capped);
    }

    private static Decision withPassedOver(Decision decision, List<String> first) {
        if (first.isEmpty()) {
            return decision;
        }
        List<String> passedOver = new ArrayList<>(first);
        passedOver.addAll(decision.passedOver());
        return new Decision(
                decision.strategy(),
                decision.level(),
                decision.reason(),
                passedOver,
                decision.dumpFirst(),
                decision.budget());
    }

    /**
     * The main refusal a give-up is about, for the one-line summary: the step-level strategy
     * that would have applied to this kind of fault, or the decision's own reason.
     */
    public static String whyNot(Decision decision, FaultKind kind) {
        String wanted = kind == FaultKind.NODE_FAULT ? "recover: " : "retry: ";
        return decision.passedOver().stream()
                .filter(p -> p.startsWith(wanted))
                .map(p -> p.substring(wanted.length()))
                .findFirst()
                .orElse(decision.reason());
    }

    /** Records a decision that was carried out; GIVE_UP is not a restart and is not recorded. */
    public synchronized RestartRecord carriedOut(Decision decision, Instant at) {
        if (decision.givesUp()) {
            return null;
        }
        if (decision.level() == RestartLevel.RERUN_IN_PLACE) {
            retriesHere++;
        } else if (decision.level() == RestartLevel.REPLACE_NODES_AND_RERUN) {
            recoversHere++;
        }
        RestartRecord record = new RestartRecord(at, decision.level());
        history.add(record);
        return record;
    }

    /** Application retries this srun may still make under {@code AUTORESUME_MAX_APP_RETRIES}, if set. */
    public synchronized OptionalInt appRetriesLeft() {
        return appCap.isPresent() ? OptionalInt.of(Math.max(0, appCap.getAsInt() - retriesHere)) : OptionalInt.empty();
    }
}
