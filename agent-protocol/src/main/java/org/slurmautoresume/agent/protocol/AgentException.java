package org.slurmautoresume.agent.protocol;

/** The agent could not be reached or did not answer; the message says which and what to do. */
public class AgentException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public AgentException(String message, Throwable cause) {
        super(message, cause);
    }

    public AgentException(String message) {
        super(message);
    }
}
