package org.slurmautoresume.supervisor.policy;

import java.util.Locale;

/** The signals the supervisor forwards to srun, with their Linux numbers. */
public enum SignalNumber {
    HUP(1),
    INT(2),
    USR1(10),
    USR2(12),
    TERM(15),
    CONT(18);

    private final int number;

    SignalNumber(int number) {
        this.number = number;
    }

    public int number() {
        return number;
    }

    /** Signals that mean "stop this step": a step ended by one of them is never re-run. */
    public boolean meansStop() {
        return this == HUP || this == INT || this == TERM;
    }

    public String displayName() {
        return "SIG" + name().toUpperCase(Locale.ROOT);
    }
}
