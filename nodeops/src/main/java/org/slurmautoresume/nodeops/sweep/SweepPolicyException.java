package org.slurmautoresume.nodeops.sweep;

/** A policy file that cannot be used; the message names the file, the field and why. */
public final class SweepPolicyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SweepPolicyException(String message, Throwable cause) {
        super(message, cause);
    }

    public SweepPolicyException(String message) {
        super(message);
    }
}
