package org.slurmautoresume.lifecycle.apply;

/** apply cannot go on: the configuration does not describe this node, or would clash with the admin's. */
public class ApplyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ApplyException(String message) {
        super(message);
    }

    public ApplyException(String message, Throwable cause) {
        super(message, cause);
    }
}
