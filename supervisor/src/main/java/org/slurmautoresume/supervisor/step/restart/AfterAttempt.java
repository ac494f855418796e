package org.slurmautoresume.supervisor.step.restart;

/**
 * What the end of an attempt comes to: the step runs again, inheriting {@link NextAttempt}, or
 * the supervisor ends with a status.
 */
public sealed interface AfterAttempt permits AfterAttempt.RunAgain, AfterAttempt.End {

    /** The step runs again with what {@code next} says. */
    record RunAgain(NextAttempt next) implements AfterAttempt {}

    /** The supervisor ends with {@code status}. */
    record End(int status) implements AfterAttempt {}

    static AfterAttempt end(int status) {
        return new End(status);
    }

    static AfterAttempt runAgain(NextAttempt next) {
        return new RunAgain(next);
    }
}
