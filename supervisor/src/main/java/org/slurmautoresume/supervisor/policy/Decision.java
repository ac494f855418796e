package org.slurmautoresume.supervisor.policy;

import java.util.List;
import java.util.Optional;

/**
 * What to do about a fault, and why.
 *
 * @param strategy the strategy chosen: RETRY, RECOVER, REQUEUE or EXIT (never DUMP)
 * @param level    what it costs
 * @param reason   one sentence for the log
 * @param passedOver why each strategy before the chosen one did not apply, in list order
 * @param dumpFirst present when the still-running step is to be signalled for its last words
 *                 before it is stopped
 * @param budget   the budgets left once this decision is carried out
 */
public record Decision(
        Strategy strategy,
        RestartLevel level,
        String reason,
        List<String> passedOver,
        Optional<DumpSettings> dumpFirst,
        Budget budget) {

    public Decision {
        passedOver = List.copyOf(passedOver);
    }

    public boolean givesUp() {
        return level == RestartLevel.GIVE_UP;
    }

    /** One log line: the choice, the reason, what was passed over, the budgets. */
    public String describe() {
        StringBuilder text =
                new StringBuilder(strategy.configName()).append(": ").append(reason);
        dumpFirst.ifPresent(d -> text.append("; first ")
                .append(d.signal().displayName())
                .append(" and up to ")
                .append(d.gracePeriod().toSeconds())
                .append(" s for a last-words checkpoint"));
        if (!passedOver.isEmpty()) {
            text.append(" (passed over: ").append(String.join("; ", passedOver)).append(')');
        }
        return text.append("; ").append(budget).toString();
    }
}
